import { createHash } from 'node:crypto';
import type { Lease } from '../generated/types/coordination/v1';
import type { Node, NodeCondition, NodeStatus } from '../generated/types/core/v1';
import { microTime } from '../controllers/runtime/micro-time';
import type { NodeCapacity } from './capacity';
import { formatCidr, formatIpv4, nodePodCidr, type Ipv4Cidr } from './pod-cidr';

/** Where the kubelet's node leases live, and how long one lasts (kubelet's nodeLeaseDurationSeconds). */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const NODE_LEASE_DURATION_SECONDS = 40;
/** The kubelet renews its lease every quarter of its duration. */
export const NODE_LEASE_RENEW_MS = (NODE_LEASE_DURATION_SECONDS * 1000) / 4;
/** The kubelet posts an unchanged node status this often (nodeStatusReportFrequency). */
export const NODE_STATUS_REPORT_MS = 5 * 60_000;

/** A simulated node's kubelet is told to stop (and, without the annotation, to run again) through this annotation on its Node. */
export const NODE_STOPPED_ANNOTATION = 'kapi.io/simulated-node-stopped';

/** The taint a kubelet registers its node with, until the node lifecycle controller sees it Ready. */
export const NOT_READY_TAINT_KEY = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT_KEY = 'node.kubernetes.io/unreachable';

/** The simulated kubelets' addresses: 172.18.0.2 on, as the nodes of a kind cluster's docker network. */
const NODE_NETWORK_BASE = (172 * 256 + 18) * 65536;

export interface SimulatedNode {
  name: string;
  podCidr: Ipv4Cidr;
  internalIp: string;
}

export const simulatedNodeName = (index: number): string => `kapi-node-${index}`;

/** The nodes of --simulated-nodes, each with its /24 of the cluster CIDR; as many as the CIDR holds. */
export function simulatedNodes(count: number, clusterCidr: Ipv4Cidr): SimulatedNode[] {
  const nodes: SimulatedNode[] = [];
  for (let i = 0; i < count; i++) {
    const podCidr = nodePodCidr(clusterCidr, i);
    if (!podCidr) break;
    nodes.push({ name: simulatedNodeName(i), podCidr, internalIp: formatIpv4(NODE_NETWORK_BASE + 2 + i) });
  }
  return nodes;
}

const uuidOf = (...parts: string[]): string => {
  const h = createHash('sha256').update(parts.join('/')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

/** The conditions a healthy kubelet posts (setNodeReadyCondition and the pressure setters), with their reasons. */
const HEALTHY: readonly Required<Pick<NodeCondition, 'type' | 'status' | 'reason' | 'message'>>[] = [
  { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
];

/** True when the node's conditions are what its kubelet would post (nothing for the kubelet to correct). */
export function conditionsHealthy(node: Node): boolean {
  return HEALTHY.every((h) => {
    const c = node.status?.conditions?.find((x) => x.type === h.type);
    return c?.status === h.status && c.reason === h.reason;
  });
}

/** The status the kubelet posts at `now`: its healthy conditions (transition times kept from `previous` when unchanged). */
export function nodeStatus(node: SimulatedNode, capacity: NodeCapacity, kubeletVersion: string, now: string, previous?: NodeStatus): NodeStatus {
  const conditions = HEALTHY.map((h): NodeCondition => {
    const before = previous?.conditions?.find((c) => c.type === h.type);
    const same = before?.status === h.status;
    return { ...h, lastHeartbeatTime: now, lastTransitionTime: same && before?.lastTransitionTime ? before.lastTransitionTime : now };
  });
  return {
    capacity: { ...capacity },
    allocatable: { ...capacity },
    conditions,
    addresses: [
      { type: 'InternalIP', address: node.internalIp },
      { type: 'Hostname', address: node.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: uuidOf('machine', node.name).replace(/-/g, ''),
      systemUUID: uuidOf('system', node.name),
      bootID: uuidOf('boot', node.name),
      kernelVersion: 'simulated',
      osImage: 'kapi simulated node',
      containerRuntimeVersion: 'containerd://simulated',
      kubeletVersion,
      // Deprecated and no longer set by kubelets, but always on the wire (Go writes the empty string).
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/** The Node a kubelet registers (initialNode): its labels, pod CIDR (node IPAM's), the not-ready taint, and its status. */
export function registrationNode(node: SimulatedNode, capacity: NodeCapacity, kubeletVersion: string, now: string): Node {
  const cidr = formatCidr(node.podCidr);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': node.name,
        'kubernetes.io/os': 'linux',
      },
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: cidr, podCIDRs: [cidr], taints: [{ key: NOT_READY_TAINT_KEY, effect: 'NoSchedule' }] },
    status: nodeStatus(node, capacity, kubeletVersion, now),
  };
}

/** The node's Lease as its kubelet keeps it: held by the node, owned by the Node object. */
export function nodeLease(node: Node, nowMs: number): Lease {
  const name = node.metadata.name ?? '';
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: NODE_LEASE_NAMESPACE,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid ?? '' }],
    },
    spec: { holderIdentity: name, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime: microTime(nowMs) },
  };
}
