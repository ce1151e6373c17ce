import type { PersistentVolumeClaim, Pod } from '../generated/types/core/v1';
import { fitErrorMessage, NO_NODES } from './fit-error';
import { filtersFor, volumePreFilter } from './filters';
import type { ClusterLookups, Cycle, Rejection } from './framework';
import { podInfoOf, type ClusterCache, type NodeInfo } from './node-info';
import { scoreNodes } from './scores';

export interface ScheduleLookups extends ClusterLookups {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
}

/** Where the pod goes, or why it goes nowhere (the PodScheduled message); `unresolvable`: no node change short of a new one helps. */
export type Decision = { node: string } | { message: string };

/**
 * schedulePod: every node through the filters, the feasible ones scored, the best taken (ties
 * broken at random, as selectHost's reservoir sampling). kube stops filtering once it has enough
 * feasible nodes in large clusters (percentageOfNodesToScore); here every node is looked at.
 */
export function schedulePod(pod: Pod, cache: ClusterCache, lookups: ScheduleLookups, random: () => number = Math.random): Decision {
  const nodes = cache.list();
  if (nodes.length === 0) return { message: NO_NODES };
  const cycle: Cycle = { pod, info: podInfoOf(pod), nodes, lookups };
  const volumes = volumePreFilter(cycle, (ns, name) => lookups.claim(ns, name));
  if (volumes) return { message: fitErrorMessage(pod, nodes.length, { preFilter: volumes }) };
  const filters = filtersFor(cycle);
  const feasible: NodeInfo[] = [];
  const rejections: Rejection[] = [];
  for (const node of nodes) {
    let rejection: Rejection | null = null;
    for (const filter of filters) if ((rejection = filter(node))) break;
    if (rejection) rejections.push(rejection);
    else feasible.push(node);
  }
  if (feasible.length === 0) return { message: fitErrorMessage(pod, nodes.length, { rejections }) };
  if (feasible.length === 1) return { node: feasible[0].name };
  const scores = scoreNodes(cycle, feasible);
  let best = -1;
  let chosen = '';
  let ties = 0;
  scores.forEach((score, i) => {
    if (score > best) {
      best = score;
      chosen = feasible[i].name;
      ties = 1;
    } else if (score === best && random() * ++ties < 1) chosen = feasible[i].name;
  });
  return { node: chosen };
}
