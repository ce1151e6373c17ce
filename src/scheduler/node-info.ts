import type { ContainerPort, Node, Pod } from '../generated/types/core/v1';
import { objectKey } from '../controllers/runtime/informer';
import { addResources, allocatableOf, podRequests, type Resources } from './resources';

const FIT_FIRST = ['cpu', 'memory', 'ephemeral-storage'];

/** A pod as the scheduler's cache keeps it: its requests worked out once. */
export interface PodInfo {
  key: string;
  pod: Pod;
  requests: Resources;
  /** The requested resources NodeResourcesFit checks, in its order: cpu, memory, ephemeral-storage, then the rest by name. */
  fitOrder: string[];
  /** With kube's defaults for what a container leaves unset (for scoring). */
  nonZeroRequests: Resources;
  hostPorts: ContainerPort[];
  hasAffinity: boolean;
  hasRequiredAntiAffinity: boolean;
}

/** Worked out once per pod object: the cycle, the assumption and the cache all ask. */
const infos = new WeakMap<Pod, PodInfo>();

export function podInfoOf(pod: Pod): PodInfo {
  let info = infos.get(pod);
  if (!info) infos.set(pod, (info = newPodInfo(pod)));
  return info;
}

function newPodInfo(pod: Pod): PodInfo {
  const affinity = pod.spec?.affinity;
  const ports: ContainerPort[] = [];
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []).filter((i) => i.restartPolicy === 'Always')]) {
    for (const p of c.ports ?? []) if ((p.hostPort ?? 0) > 0) ports.push(p);
  }
  const requests = podRequests(pod);
  return {
    key: objectKey(pod),
    pod,
    requests,
    fitOrder: [...FIT_FIRST.filter((r) => requests.has(r)), ...[...requests.keys()].filter((r) => !FIT_FIRST.includes(r) && r !== 'pods').sort()],
    nonZeroRequests: podRequests(pod, true),
    hostPorts: ports,
    hasAffinity: !!(affinity?.podAffinity || affinity?.podAntiAffinity),
    hasRequiredAntiAffinity: (affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0,
  };
}

/** framework.NodeInfo: a node, the pods bound (or assumed bound) to it, and their sums, kept as pods come and go. */
export class NodeInfo {
  readonly pods = new Map<string, PodInfo>();
  readonly requested: Resources = new Map();
  readonly nonZeroRequested: Resources = new Map();
  allocatable: Resources;
  podsWithAffinity = 0;
  podsWithRequiredAntiAffinity = 0;

  constructor(public node: Node) {
    this.allocatable = allocatableOf(node);
  }

  get name(): string {
    return this.node.metadata.name ?? '';
  }

  get labels(): Record<string, string> {
    return this.node.metadata.labels ?? {};
  }

  setNode(node: Node): void {
    this.node = node;
    this.allocatable = allocatableOf(node);
  }

  add(info: PodInfo): void {
    this.remove(info.key);
    this.pods.set(info.key, info);
    this.account(info, 1);
  }

  remove(key: string): void {
    const old = this.pods.get(key);
    if (!old) return;
    this.pods.delete(key);
    this.account(old, -1);
  }

  private account(info: PodInfo, sign: 1 | -1): void {
    addResources(this.requested, info.requests, sign);
    addResources(this.nonZeroRequested, info.nonZeroRequests, sign);
    if (info.hasAffinity) this.podsWithAffinity += sign;
    if (info.hasRequiredAntiAffinity) this.podsWithRequiredAntiAffinity += sign;
  }
}

/**
 * The scheduler's cache: nodes and the pods on them, from the informers, plus pods assumed bound
 * while their binding is in flight (kube's assume/forget), so the next pod sees them at once.
 */
export class ClusterCache {
  readonly nodes = new Map<string, NodeInfo>();
  /** Pods with a node, by key → that node's name (pods may name a node not (yet) known). */
  private readonly placed = new Map<string, { node: string; info: PodInfo }>();

  setNode(node: Node): void {
    const name = node.metadata.name ?? '';
    const existing = this.nodes.get(name);
    if (existing) {
      existing.setNode(node);
      return;
    }
    const info = new NodeInfo(node);
    this.nodes.set(name, info);
    for (const placed of this.placed.values()) if (placed.node === name) info.add(placed.info);
  }

  removeNode(name: string): void {
    this.nodes.delete(name);
  }

  /** A pod bound to, or assumed on, `node`. */
  placePod(pod: Pod, node: string): void {
    const info = podInfoOf(pod);
    this.removePod(info.key);
    this.placed.set(info.key, { node, info });
    this.nodes.get(node)?.add(info);
  }

  removePod(key: string): void {
    const old = this.placed.get(key);
    if (!old) return;
    this.placed.delete(key);
    this.nodes.get(old.node)?.remove(key);
  }

  nodeOf(key: string): string | undefined {
    return this.placed.get(key)?.node;
  }

  list(): NodeInfo[] {
    return [...this.nodes.values()];
  }
}
