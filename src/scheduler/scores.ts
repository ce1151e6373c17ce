import type { Toleration } from '../generated/types/core/v1';
import { MAX_NODE_SCORE, type Cycle } from './framework';
import type { NodeInfo } from './node-info';
import { termMatches, toleratedBy } from './node-matching';
import { affinityScores } from './pod-affinity';
import { spreadScores } from './topology-spread';

const RESOURCES = ['cpu', 'memory'];

/** leastRequestedScore. */
function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/** NodeResourcesFit's LeastAllocated score over cpu and memory (weight 1 each), with kube's defaults for unset requests. */
function leastAllocated(cycle: Cycle, node: NodeInfo): number {
  let sum = 0;
  let weights = 0;
  for (const r of RESOURCES) {
    const allocatable = node.allocatable.get(r) ?? 0;
    if (allocatable === 0) continue;
    sum += leastRequested((node.nonZeroRequested.get(r) ?? 0) + (cycle.info.nonZeroRequests.get(r) ?? 0), allocatable);
    weights++;
  }
  return weights === 0 ? 0 : Math.trunc(sum / weights);
}

/** NodeResourcesBalancedAllocation: 100 × (1 − the spread of the cpu and memory fractions requested). */
function balancedAllocation(cycle: Cycle, node: NodeInfo): number {
  const fractions: number[] = [];
  for (const r of RESOURCES) {
    const allocatable = node.allocatable.get(r) ?? 0;
    if (allocatable === 0) continue;
    fractions.push(Math.min(1, ((node.requested.get(r) ?? 0) + (cycle.info.requests.get(r) ?? 0)) / allocatable));
  }
  const std = fractions.length === 2 ? Math.abs((fractions[0] - fractions[1]) / 2) : 0;
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

/** helper.DefaultNormalizeScore. */
function normalize(scores: number[], reverse: boolean): number[] {
  const max = Math.max(0, ...scores);
  if (max === 0) return scores.map(() => (reverse ? MAX_NODE_SCORE : 0));
  return scores.map((s) => {
    const n = Math.trunc((MAX_NODE_SCORE * s) / max);
    return reverse ? MAX_NODE_SCORE - n : n;
  });
}

function preferredNodeAffinity(cycle: Cycle, nodes: NodeInfo[]): number[] | null {
  const terms = cycle.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  if (terms.length === 0) return null;
  const raw = nodes.map((n) => terms.reduce((sum, t) => sum + (t.weight && t.preference && termMatches(t.preference, n.node) ? t.weight : 0), 0));
  return normalize(raw, false);
}

function taintToleration(cycle: Cycle, nodes: NodeInfo[]): number[] {
  const tolerations: Toleration[] = (cycle.pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
  const raw = nodes.map((n) => (n.node.spec?.taints ?? []).filter((t) => t.effect === 'PreferNoSchedule' && !toleratedBy(tolerations, t)).length);
  return normalize(raw, true);
}

const isBestEffort = (cycle: Cycle) => RESOURCES.every((r) => !cycle.info.requests.get(r));

/**
 * The default profile's scores, normalized and weighted as its plugins are (TaintToleration 3,
 * NodeAffinity 2, PodTopologySpread 2, InterPodAffinity 2, NodeResourcesFit 1,
 * NodeResourcesBalancedAllocation 1): each feasible node's total.
 */
export function scoreNodes(cycle: Cycle, nodes: NodeInfo[]): number[] {
  const totals = nodes.map((n) => leastAllocated(cycle, n));
  const add = (scores: number[] | null, weight: number) => scores?.forEach((s, i) => (totals[i] += s * weight));
  if (!isBestEffort(cycle))
    add(
      nodes.map((n) => balancedAllocation(cycle, n)),
      1,
    );
  add(taintToleration(cycle, nodes), 3);
  add(preferredNodeAffinity(cycle, nodes), 2);
  add(spreadScores(cycle, nodes), 2);
  add(affinityScores(cycle, nodes), 2);
  return totals;
}
