import { matchesLabels, type LabelSelector } from '../api/label-selector';
import type { Pod, TopologySpreadConstraint } from '../generated/types/core/v1';
import { MAX_NODE_SCORE, reject, type Cycle, type Rejection } from './framework';
import type { NodeInfo } from './node-info';
import { nodeMatchesPod, selectorOf, untoleratedTaint } from './node-matching';

const PLUGIN = 'PodTopologySpread';
const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
  minDomains: number;
  honorAffinity: boolean;
  honorTaints: boolean;
}

/** The system default constraints (the default profile's defaultingType System): ScheduleAnyway over zones (skew 5) and hosts (3). */
const SYSTEM_DEFAULTS = [
  { topologyKey: ZONE, maxSkew: 5 },
  { topologyKey: HOSTNAME, maxSkew: 3 },
];

/** A constraint's selector with its matchLabelKeys as `key in (the pod's value)` (what the API server has not merged already). */
function constraintOf(pod: Pod, c: TopologySpreadConstraint): Constraint | null {
  const selector = selectorOf(c.labelSelector);
  if (!selector) return null;
  const labels = pod.metadata.labels ?? {};
  for (const key of c.matchLabelKeys ?? []) if (key in labels) selector.push({ key, operator: 'In', values: [labels[key]] });
  return {
    maxSkew: c.maxSkew ?? 1,
    topologyKey: c.topologyKey ?? '',
    selector,
    minDomains: c.minDomains ?? 1,
    honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
    honorTaints: c.nodeTaintsPolicy === 'Honor',
  };
}

function constraintsOf(pod: Pod, when: 'DoNotSchedule' | 'ScheduleAnyway'): Constraint[] {
  return (pod.spec?.topologySpreadConstraints ?? [])
    .filter((c) => c.whenUnsatisfiable === when)
    .map((c) => constraintOf(pod, c))
    .filter((c): c is Constraint => c !== null);
}

/** matchNodeInclusionPolicies: whether the node's pods count for the pod's spreading. */
function included(c: Constraint, pod: Pod, node: NodeInfo): boolean {
  if (c.honorAffinity && !nodeMatchesPod(pod, node.node)) return false;
  return !(c.honorTaints && untoleratedTaint(node.node, pod));
}

/** countPodsMatchSelector: pods of the namespace not being deleted whose labels match. */
function countMatching(node: NodeInfo, selector: LabelSelector, namespace: string): number {
  let n = 0;
  for (const { pod } of node.pods.values()) {
    if (!pod.metadata.deletionTimestamp && pod.metadata.namespace === namespace && matchesLabels(selector, pod.metadata.labels)) n++;
  }
  return n;
}

/**
 * countMatching for one scheduling decision, each node counted once per selector: the system
 * default constraints (zones and hosts) share one selector, and each walked every pod of every node.
 */
function matchingCounter(namespace: string): (node: NodeInfo, selector: LabelSelector) => number {
  const counted = new Map<LabelSelector, Map<NodeInfo, number>>();
  return (node, selector) => {
    let byNode = counted.get(selector);
    if (!byNode) counted.set(selector, (byNode = new Map()));
    let n = byNode.get(node);
    if (n === undefined) byNode.set(node, (n = countMatching(node, selector, namespace)));
    return n;
  };
}

const hasKeys = (node: NodeInfo, constraints: Constraint[]) => constraints.every((c) => c.topologyKey in node.labels);

export interface SpreadFilterState {
  constraints: Constraint[];
  /** Per constraint: topology value → matching pods. */
  counts: Map<string, number>[];
  minMatch: number[];
}

/** PodTopologySpread PreFilter over the DoNotSchedule constraints; null when there are none (Skip). */
export function spreadPreFilter(cycle: Cycle): SpreadFilterState | null {
  const { pod, nodes } = cycle;
  const constraints = constraintsOf(pod, 'DoNotSchedule');
  if (constraints.length === 0) return null;
  const namespace = pod.metadata.namespace ?? '';
  const counts = constraints.map(() => new Map<string, number>());
  for (const node of nodes) {
    if (!hasKeys(node, constraints)) continue;
    constraints.forEach((c, i) => {
      if (!included(c, pod, node)) return;
      const value = node.labels[c.topologyKey];
      counts[i].set(value, (counts[i].get(value) ?? 0) + countMatching(node, c.selector, namespace));
    });
  }
  const minMatch = constraints.map((c, i) => (counts[i].size < c.minDomains ? 0 : Math.min(...counts[i].values())));
  return { constraints, counts, minMatch };
}

/** PodTopologySpread Filter: placing the pod on the node keeps every constraint's skew within maxSkew. */
export function spreadFilter(s: SpreadFilterState, pod: Pod, node: NodeInfo): Rejection | null {
  for (let i = 0; i < s.constraints.length; i++) {
    const c = s.constraints[i];
    const value = node.labels[c.topologyKey];
    if (value === undefined)
      return reject(PLUGIN, 'UnschedulableAndUnresolvable', "node(s) didn't match pod topology spread constraints (missing required label)");
    const self = matchesLabels(c.selector, pod.metadata.labels) ? 1 : 0;
    const skew = (s.counts[i].get(value) ?? 0) + self - (Number.isFinite(s.minMatch[i]) ? s.minMatch[i] : 0);
    if (skew > c.maxSkew) return reject(PLUGIN, 'Unschedulable', "node(s) didn't match pod topology spread constraints");
  }
  return null;
}

/**
 * PodTopologySpread PreScore, Score and NormalizeScore over the ScheduleAnyway constraints (the
 * system defaults when the pod has no constraints of its own and something selects it): fewer
 * matching pods in a node's domains scores higher. Null: Skip.
 */
export function spreadScores(cycle: Cycle, feasible: NodeInfo[]): number[] | null {
  const { pod } = cycle;
  const own = pod.spec?.topologySpreadConstraints ?? [];
  let constraints: Constraint[];
  const systemDefaulted = own.length === 0;
  if (systemDefaulted) {
    const selector = cycle.lookups.defaultSelector(pod);
    if (!selector) return null;
    constraints = SYSTEM_DEFAULTS.map((d) => ({ ...d, selector, minDomains: 1, honorAffinity: true, honorTaints: false }));
  } else constraints = constraintsOf(pod, 'ScheduleAnyway');
  if (constraints.length === 0) return null;
  const countOn = matchingCounter(pod.metadata.namespace ?? '');
  // Defaulted constraints only count nodes with every key; a node without a constraint's key is ignored.
  const ignored = new Set(feasible.filter((n) => (systemDefaulted ? !hasKeys(n, constraints) : false)).map((n) => n.name));
  const pairs = constraints.map(() => new Map<string, number>());
  const weights = constraints.map((c, i) => {
    for (const n of feasible) if (!ignored.has(n.name) && c.topologyKey in n.labels) pairs[i].set(n.labels[c.topologyKey], 0);
    const size = c.topologyKey === HOSTNAME ? feasible.length - ignored.size : pairs[i].size;
    return Math.log(size + 2);
  });
  for (const node of cycle.nodes) {
    if (!hasKeys(node, constraints)) continue;
    constraints.forEach((c, i) => {
      if (c.topologyKey === HOSTNAME || !included(c, pod, node)) return;
      const value = node.labels[c.topologyKey];
      if (pairs[i].has(value)) pairs[i].set(value, pairs[i].get(value)! + countOn(node, c.selector));
    });
  }
  const raw = feasible.map((node) => {
    if (ignored.has(node.name)) return 0;
    let score = 0;
    constraints.forEach((c, i) => {
      const value = node.labels[c.topologyKey];
      if (value === undefined) return;
      const count = c.topologyKey === HOSTNAME ? countOn(node, c.selector) : (pairs[i].get(value) ?? 0);
      score += count * weights[i] + (c.maxSkew - 1);
    });
    return Math.round(score);
  });
  const counted = raw.filter((_, i) => !ignored.has(feasible[i].name));
  const min = counted.length ? Math.min(...counted) : 0;
  const max = counted.length ? Math.max(...counted) : 0;
  return raw.map((s, i) => {
    if (ignored.has(feasible[i].name)) return 0;
    if (max === 0) return MAX_NODE_SCORE;
    return Math.trunc((MAX_NODE_SCORE * (max + min - s)) / max);
  });
}
