import { matchesLabels, type LabelSelector } from '../api/label-selector';
import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from '../generated/types/core/v1';
import { MAX_NODE_SCORE, reject, type ClusterLookups, type Cycle, type Rejection } from './framework';
import type { NodeInfo } from './node-info';
import { selectorOf } from './node-matching';

const PLUGIN = 'InterPodAffinity';
/** The default profile's hardPodAffinityWeight: how much an existing pod's required affinity counts in scoring. */
const HARD_POD_AFFINITY_WEIGHT = 1;

/** framework.AffinityTerm: a term with its selector and namespaces resolved. */
interface AffinityTerm {
  selector: LabelSelector | null;
  namespaces: Set<string>;
  namespaceSelector: LabelSelector | null;
  topologyKey: string;
  weight: number;
}

function termOf(owner: Pod, term: PodAffinityTerm, weight = 0): AffinityTerm {
  const namespaces = new Set(term.namespaces ?? []);
  // No namespaces and no namespace selector: the owner's own namespace.
  if (namespaces.size === 0 && !term.namespaceSelector) namespaces.add(owner.metadata.namespace ?? '');
  return {
    selector: selectorOf(term.labelSelector),
    namespaces,
    namespaceSelector: selectorOf(term.namespaceSelector),
    topologyKey: term.topologyKey ?? '',
    weight,
  };
}

const required = (pod: Pod, terms: PodAffinityTerm[] | undefined) => (terms ?? []).map((t) => termOf(pod, t));
const preferred = (pod: Pod, terms: WeightedPodAffinityTerm[] | undefined) =>
  (terms ?? []).filter((t) => t.podAffinityTerm).map((t) => termOf(pod, t.podAffinityTerm!, t.weight ?? 0));

/** AffinityTerm.Matches. */
function matches(term: AffinityTerm, pod: Pod, lookups: ClusterLookups): boolean {
  const ns = pod.metadata.namespace ?? '';
  const inNamespace = term.namespaces.has(ns) || (term.namespaceSelector !== null && matchesLabels(term.namespaceSelector, lookups.namespaceLabels(ns)));
  return inNamespace && term.selector !== null && matchesLabels(term.selector, pod.metadata.labels);
}

const pair = (key: string, value: string) => `${key}\u0000${value}`;

function increment(counts: Map<string, number>, key: string, by: number): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

/** The InterPodAffinity filter's PreFilter state: counts of matching pods per topology pair. */
export interface AffinityFilterState {
  affinityTerms: AffinityTerm[];
  antiAffinityTerms: AffinityTerm[];
  affinityCounts: Map<string, number>;
  antiAffinityCounts: Map<string, number>;
  existingAntiAffinityCounts: Map<string, number>;
  podMatchesOwnTerms: boolean;
}

/** InterPodAffinity PreFilter; null when neither the pod nor any existing pod has required (anti-)affinity (Skip). */
export function affinityPreFilter(cycle: Cycle): AffinityFilterState | null {
  const { pod, nodes, lookups } = cycle;
  const a = pod.spec?.affinity;
  const affinityTerms = required(pod, a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
  const antiAffinityTerms = required(pod, a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
  const anyExisting = nodes.some((n) => n.podsWithRequiredAntiAffinity > 0);
  if (affinityTerms.length === 0 && antiAffinityTerms.length === 0 && !anyExisting) return null;
  const state: AffinityFilterState = {
    affinityTerms,
    antiAffinityTerms,
    affinityCounts: new Map(),
    antiAffinityCounts: new Map(),
    existingAntiAffinityCounts: new Map(),
    podMatchesOwnTerms: affinityTerms.every((t) => matches(t, pod, lookups)),
  };
  for (const node of nodes) {
    const labels = node.labels;
    for (const existing of node.pods.values()) {
      if (node.podsWithRequiredAntiAffinity > 0 && existing.hasRequiredAntiAffinity) {
        for (const t of required(existing.pod, existing.pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution)) {
          if (t.topologyKey in labels && matches(t, pod, lookups)) increment(state.existingAntiAffinityCounts, pair(t.topologyKey, labels[t.topologyKey]), 1);
        }
      }
      if (affinityTerms.length > 0 && affinityTerms.every((t) => matches(t, existing.pod, lookups))) {
        for (const t of affinityTerms) if (t.topologyKey in labels) increment(state.affinityCounts, pair(t.topologyKey, labels[t.topologyKey]), 1);
      }
      for (const t of antiAffinityTerms) {
        if (t.topologyKey in labels && matches(t, existing.pod, lookups)) increment(state.antiAffinityCounts, pair(t.topologyKey, labels[t.topologyKey]), 1);
      }
    }
  }
  return state;
}

/** satisfyPodAffinity: every term has a matching pod in the node's domain, or the pod is the first of a group matching itself. */
function satisfiesAffinity(s: AffinityFilterState, node: NodeInfo): boolean {
  let podsExist = true;
  for (const t of s.affinityTerms) {
    const value = node.labels[t.topologyKey];
    if (value === undefined) return false;
    if ((s.affinityCounts.get(pair(t.topologyKey, value)) ?? 0) <= 0) podsExist = false;
  }
  return podsExist || (s.affinityCounts.size === 0 && s.podMatchesOwnTerms);
}

/** InterPodAffinity Filter. */
export function affinityFilter(s: AffinityFilterState, node: NodeInfo): Rejection | null {
  if (!satisfiesAffinity(s, node)) return reject(PLUGIN, 'UnschedulableAndUnresolvable', "node(s) didn't match pod affinity rules");
  for (const t of s.antiAffinityTerms) {
    const value = node.labels[t.topologyKey];
    if (value !== undefined && (s.antiAffinityCounts.get(pair(t.topologyKey, value)) ?? 0) > 0) {
      return reject(PLUGIN, 'Unschedulable', "node(s) didn't match pod anti-affinity rules");
    }
  }
  for (const [key, value] of Object.entries(node.labels)) {
    if ((s.existingAntiAffinityCounts.get(pair(key, value)) ?? 0) > 0) {
      return reject(PLUGIN, 'Unschedulable', "node(s) didn't satisfy existing pods anti-affinity rules");
    }
  }
  return null;
}

/**
 * InterPodAffinity PreScore and Score: per topology pair, the weights of the pod's preferred terms
 * its pods match (anti-affinity negative), and of existing pods' preferred (and, at weight 1,
 * required) terms the pod matches; a node scores the sum over its labels' pairs. Null: Skip.
 */
export function affinityScores(cycle: Cycle, feasible: NodeInfo[]): number[] | null {
  const { pod, lookups } = cycle;
  const a = pod.spec?.affinity;
  const prefAffinity = preferred(pod, a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
  const prefAnti = preferred(pod, a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
  const podHasTerms = prefAffinity.length > 0 || prefAnti.length > 0;
  if (!podHasTerms && !cycle.nodes.some((n) => n.podsWithAffinity > 0)) return null;
  const topologyScore = new Map<string, number>();
  const add = (term: AffinityTerm, labels: Record<string, string>, by: number) => {
    const value = labels[term.topologyKey];
    if (value !== undefined) increment(topologyScore, pair(term.topologyKey, value), by);
  };
  for (const node of cycle.nodes) {
    if (!podHasTerms && node.podsWithAffinity === 0) continue;
    for (const existing of node.pods.values()) {
      for (const t of prefAffinity) if (matches(t, existing.pod, lookups)) add(t, node.labels, t.weight);
      for (const t of prefAnti) if (matches(t, existing.pod, lookups)) add(t, node.labels, -t.weight);
      if (!existing.hasAffinity) continue;
      const ea = existing.pod.spec?.affinity;
      for (const t of required(existing.pod, ea?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution)) {
        if (matches(t, pod, lookups)) add(t, node.labels, HARD_POD_AFFINITY_WEIGHT);
      }
      for (const t of preferred(existing.pod, ea?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution))
        if (matches(t, pod, lookups)) add(t, node.labels, t.weight);
      for (const t of preferred(existing.pod, ea?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution)) {
        if (matches(t, pod, lookups)) add(t, node.labels, -t.weight);
      }
    }
  }
  if (topologyScore.size === 0) return null;
  const raw = feasible.map((n) => Object.entries(n.labels).reduce((sum, [k, v]) => sum + (topologyScore.get(pair(k, v)) ?? 0), 0));
  // NormalizeScore: min-max onto 0..100.
  const min = Math.min(...raw);
  const diff = Math.max(...raw) - min;
  return raw.map((s) => (diff > 0 ? Math.trunc((MAX_NODE_SCORE * (s - min)) / diff) : 0));
}
