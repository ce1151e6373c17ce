import type { Pod } from '../../generated/types/core/v1';
import { isPodActive, isPodReady, podCondition } from '../pods/pod-conditions';

/** The annotation that tells a ReplicaSet which of its pods to remove first (lower cost first). */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** GetDeletionCostFromPodAnnotations; an unparsable cost counts as none. */
function deletionCost(pod: Pod): number {
  const text = pod.metadata.annotations?.[POD_DELETION_COST_ANNOTATION];
  return text !== undefined && /^[+-]?\d+$/.test(text.trim()) ? Number(text) : 0;
}

const timeMs = (t: string | null | undefined): number | null => (t ? Date.parse(t) : null);
const readySince = (pod: Pod): number | null => (isPodReady(pod) ? timeMs(podCondition(pod, 'Ready')?.lastTransitionTime) : null);

/** afterOrZero: a missing time sorts first, then the later one. */
function afterOrZero(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === null;
  return a > b;
}

/** logarithmicRankDiff: ages compared on a log2 scale (of nanoseconds), so similar ages tie. */
function logRankDiff(a: number, b: number, now: number): number {
  const rank = (t: number) => (now - t > 0 ? Math.floor(Math.log2((now - t) * 1e6)) : -1);
  return rank(a) - rank(b);
}

/** The highest restart count of the regular containers and of the restartable init (sidecar) containers. */
function maxRestarts(pod: Pod): { regular: number; sidecar: number } {
  const regular = Math.max(0, ...(pod.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
  const sidecars = new Set((pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const sidecar = Math.max(0, ...(pod.status?.initContainerStatuses ?? []).filter((s) => sidecars.has(s.name)).map((s) => s.restartCount ?? 0));
  return { regular, sidecar };
}

/** A comparison of two times by ActivePodsWithRanks' rules for ready and creation times. */
function youngerFirst(a: number | null, b: number | null, uidA: string, uidB: string, now: number): number {
  if (a === b) return 0;
  if (a === null || b === null) return afterOrZero(a, b) ? -1 : 1;
  const diff = logRankDiff(a, b, now);
  if (diff === 0) return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
  return diff;
}

interface Ranked {
  pod: Pod;
  /** How many related active pods share its node. */
  rank: number;
}

/** controller.ActivePodsWithRanks' Less, as a comparator: the pod to delete first sorts first. */
function compare(x: Ranked, y: Ranked, now: number): number {
  const [a, b] = [x.pod, y.pod];
  const nodeA = a.spec?.nodeName ?? '';
  const nodeB = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  const phaseA = PHASE_ORDER[a.status?.phase ?? ''] ?? 0;
  const phaseB = PHASE_ORDER[b.status?.phase ?? ''] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1;
  const costA = deletionCost(a);
  const costB = deletionCost(b);
  if (costA !== costB) return costA - costB;
  if (x.rank !== y.rank) return y.rank - x.rank;
  const uidA = a.metadata.uid ?? '';
  const uidB = b.metadata.uid ?? '';
  if (isPodReady(a) && isPodReady(b)) {
    const byReady = youngerFirst(readySince(a), readySince(b), uidA, uidB, now);
    if (byReady !== 0) return byReady;
  }
  const restartsA = maxRestarts(a);
  const restartsB = maxRestarts(b);
  if (restartsA.regular !== restartsB.regular) return restartsB.regular - restartsA.regular;
  if (restartsA.sidecar !== restartsB.sidecar) return restartsB.sidecar - restartsA.sidecar;
  return youngerFirst(timeMs(a.metadata.creationTimestamp), timeMs(b.metadata.creationTimestamp), uidA, uidB, now);
}

/**
 * getPodsToDelete: which `count` of `pods` a ReplicaSet scaling down removes, ranked as kube ranks
 * them (unassigned, pending, not ready, cheaper, doubled up with related pods, recently ready,
 * restarting, young first). `related` are the pods of the ReplicaSet and its siblings.
 */
export function podsToDelete(pods: Pod[], related: Pod[], count: number, now: number): Pod[] {
  if (count >= pods.length) return pods.slice(0, count);
  const onNode = new Map<string, number>();
  for (const pod of related) if (isPodActive(pod)) onNode.set(pod.spec?.nodeName ?? '', (onNode.get(pod.spec?.nodeName ?? '') ?? 0) + 1);
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((x, y) => compare(x, y, now));
  return ranked.slice(0, count).map((r) => r.pod);
}
