import type { ContainerPort, PersistentVolumeClaim } from '../generated/types/core/v1';
import { reject, type Cycle, type Rejection } from './framework';
import type { NodeInfo } from './node-info';
import { nodeMatchesPod, toleratedBy, untoleratedTaint } from './node-matching';
import { affinityFilter, affinityPreFilter } from './pod-affinity';
import { spreadFilter, spreadPreFilter } from './topology-spread';

const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' as const };

function nodeUnschedulable(cycle: Cycle, node: NodeInfo): Rejection | null {
  if (!node.node.spec?.unschedulable || toleratedBy(cycle.pod.spec?.tolerations, UNSCHEDULABLE_TAINT)) return null;
  return reject('NodeUnschedulable', 'UnschedulableAndUnresolvable', 'node(s) were unschedulable');
}

function taintToleration(cycle: Cycle, node: NodeInfo): Rejection | null {
  return untoleratedTaint(node.node, cycle.pod) ? reject('TaintToleration', 'UnschedulableAndUnresolvable', 'node(s) had untolerated taint(s)') : null;
}

function nodeAffinity(cycle: Cycle, node: NodeInfo): Rejection | null {
  return nodeMatchesPod(cycle.pod, node.node)
    ? null
    : reject('NodeAffinity', 'UnschedulableAndUnresolvable', "node(s) didn't match Pod's node affinity/selector");
}

/** HostPortInfo.CheckConflict: same protocol and port, on the same IP or either on every IP. */
function conflicts(a: ContainerPort, b: ContainerPort): boolean {
  if (a.hostPort !== b.hostPort || (a.protocol ?? 'TCP') !== (b.protocol ?? 'TCP')) return false;
  const [ipA, ipB] = [a.hostIP || '0.0.0.0', b.hostIP || '0.0.0.0'];
  return ipA === ipB || ipA === '0.0.0.0' || ipB === '0.0.0.0';
}

function nodePorts(cycle: Cycle, node: NodeInfo): Rejection | null {
  const wanted = cycle.info.hostPorts;
  if (wanted.length === 0) return null;
  for (const existing of node.pods.values()) {
    for (const used of existing.hostPorts) {
      if (wanted.some((p) => conflicts(p, used))) return reject('NodePorts', 'Unschedulable', "node(s) didn't have free ports for the requested pod ports");
    }
  }
  return null;
}

/** NodeResourcesFit Filter (fitsRequest): pods count, then each requested resource against allocatable minus what the node's pods request. */
function nodeResourcesFit(cycle: Cycle, node: NodeInfo): Rejection | null {
  const reasons: string[] = [];
  let unresolvable = false;
  if (node.pods.size + 1 > (node.allocatable.get('pods') ?? 0)) reasons.push('Too many pods');
  const requests = cycle.info.requests;
  for (const name of cycle.info.fitOrder) {
    const want = requests.get(name) ?? 0;
    if (want <= 0) continue;
    const allocatable = node.allocatable.get(name) ?? 0;
    if (want > allocatable - (node.requested.get(name) ?? 0)) {
      reasons.push(`Insufficient ${name}`);
      if (want > allocatable) unresolvable = true;
    }
  }
  if (reasons.length === 0) return null;
  return reject('NodeResourcesFit', unresolvable ? 'UnschedulableAndUnresolvable' : 'Unschedulable', ...reasons);
}

type NodeFilter = (node: NodeInfo) => Rejection | null;

/** The default profile's filters in its order, with the PreFilter work of those that have one done once for the cycle. */
export function filtersFor(cycle: Cycle): NodeFilter[] {
  const filters: NodeFilter[] = [nodeUnschedulable, taintToleration, nodeAffinity, nodePorts, nodeResourcesFit].map((f) => (node: NodeInfo) => f(cycle, node));
  const spread = spreadPreFilter(cycle);
  if (spread) filters.push((node) => spreadFilter(spread, cycle.pod, node));
  const affinity = affinityPreFilter(cycle);
  if (affinity) filters.push((node) => affinityFilter(affinity, node));
  return filters;
}

/**
 * VolumeBinding PreFilter, for claims that are bound already: a missing, deleted or unbound claim
 * stops the pod before any node is looked at. The reason, or null.
 */
export function volumePreFilter(cycle: Cycle, claim: (namespace: string, name: string) => PersistentVolumeClaim | undefined): string | null {
  const { pod } = cycle;
  const namespace = pod.metadata.namespace ?? '';
  let unbound = false;
  for (const v of pod.spec?.volumes ?? []) {
    const name = v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? `${pod.metadata.name}-${v.name}` : undefined);
    if (name === undefined) continue;
    const pvc = claim(namespace, name);
    if (!pvc) return `persistentvolumeclaim "${name}" not found`;
    if (pvc.metadata.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
    if (!pvc.spec?.volumeName) unbound = true;
  }
  return unbound ? 'pod has unbound immediate PersistentVolumeClaims' : null;
}
