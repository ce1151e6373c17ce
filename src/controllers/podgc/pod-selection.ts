import type { Node, Pod } from '../../generated/types/core/v1';

/** The pod GC's choices, apart from the API calls (pkg/controller/podgc/gc_controller.go). */

/** isPodTerminated: any phase but Pending, Running and Unknown. */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
}

/** eviction.PodIsEvicted: failed with the kubelet's Evicted reason. */
const isEvicted = (pod: Pod): boolean => pod.status?.phase === 'Failed' && pod.status.reason === 'Evicted';

/** byEvictionAndCreationTimestamp: evicted pods first, then the oldest, then by name. */
export function byEvictionAndCreation(a: Pod, b: Pod): number {
  const evicted = Number(isEvicted(b)) - Number(isEvicted(a));
  if (evicted !== 0) return evicted;
  const created = Date.parse(a.metadata.creationTimestamp ?? '') - Date.parse(b.metadata.creationTimestamp ?? '');
  if (created !== 0 && !Number.isNaN(created)) return created;
  const [x = '', y = ''] = [a.metadata.name, b.metadata.name];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** gcTerminated: the terminated pods beyond `threshold`, those to delete first first. */
export function terminatedOverThreshold(pods: Pod[], threshold: number): Pod[] {
  const terminated = pods.filter(isPodTerminated);
  const excess = terminated.length - threshold;
  return excess > 0 ? terminated.sort(byEvictionAndCreation).slice(0, excess) : [];
}

const isNodeReady = (node: Node): boolean => (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** gcTerminating: pods being deleted on a node that is not Ready and carries the out-of-service taint. */
export function terminatingOnOutOfServiceNodes(pods: Pod[], nodes: Map<string, Node>): Pod[] {
  return pods
    .filter((pod) => {
      if (!pod.metadata.deletionTimestamp) return false;
      const node = nodes.get(pod.spec?.nodeName ?? '');
      return !!node && !isNodeReady(node) && (node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/out-of-service');
    })
    .sort(byEvictionAndCreation);
}

/** gcUnscheduledTerminating: pods being deleted that were never bound to a node. */
export const unscheduledTerminating = (pods: Pod[]): Pod[] => pods.filter((pod) => pod.metadata.deletionTimestamp && !pod.spec?.nodeName);
