import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { Node } from '../generated/types/core/v1';
import type { Lease } from '../generated/types/coordination/v1';
import { SYSTEM_READ_ALL, withInfo } from '../registry/request-context';
import { timestampAt } from '../registry/time';
import { every } from '../api/clock';
import type { ControllerDeps } from '../controllers/runtime/controller-deps';
import type { CachedInformer } from '../controllers/runtime/informer';
import { microTime } from '../controllers/runtime/micro-time';
import type { NodeCapacity } from './capacity';
import { kubeletStartEvents, nodeConditionEvents, type KubeletEvent, type KubeletEventSinks } from './kubelet-events';
import {
  conditionsHealthy,
  NODE_LEASE_NAMESPACE,
  NODE_LEASE_RENEW_MS,
  NODE_STATUS_REPORT_MS,
  NODE_STOPPED_ANNOTATION,
  nodeLease,
  nodeStatus,
  registrationNode,
  type SimulatedNode,
} from './simulated-node';

const isStopped = (node: Node | undefined): boolean => node?.metadata.annotations?.[NODE_STOPPED_ANNOTATION] === 'true';

/**
 * The node side of the simulated kubelets: each registers its Node (again when it is deleted, as
 * a live kubelet does), renews its Lease every 10 s, and posts its status when the node
 * lifecycle controller has marked it otherwise or 5 minutes have passed. A Node annotated
 * `kapi.io/simulated-node-stopped: "true"` has a stopped kubelet: nothing is renewed or posted
 * until the annotation goes.
 */
export class NodeAgents {
  readonly informer: CachedInformer;
  private readonly nodes: ObjectStore;
  private readonly leases: ObjectStore;
  private readonly byName: Map<string, SimulatedNode>;
  private readonly lastPosted = new Map<string, number>();
  private readonly busy = new Set<string>();
  private cancelTick: (() => void) | null = null;
  private running = false;

  constructor(
    private readonly deps: ControllerDeps,
    simulated: SimulatedNode[],
    private readonly capacity: NodeCapacity,
    private readonly kubeletVersion: string,
    private readonly events: KubeletEventSinks,
    /** Told when a node's kubelet runs again (or first): its pods need a look. */
    private readonly resumed: (nodeName: string) => void,
  ) {
    this.nodes = deps.store('', 'v1', 'nodes');
    this.leases = deps.store('coordination.k8s.io', 'v1', 'leases');
    this.byName = new Map(simulated.map((n) => [n.name, n]));
    const names = this.byName;
    this.informer = deps.informers.informer(
      this.nodes,
      {
        added: (node) => this.observe(node as Node, undefined),
        updated: (old, node) => this.observe(node as Node, old as Node),
        deleted: (node) => this.reconcile(node.metadata.name ?? ''),
      },
      {
        name: 'simulated nodes',
        filter: { description: 'metadata.name in the simulated nodes', predicate: { matches: (o) => names.has(o.metadata.name ?? ''), empty: false } },
      },
    );
  }

  get names(): ReadonlySet<string> {
    return new Set(this.byName.keys());
  }

  /** What every simulated node offers pods (its allocatable is its capacity). */
  get allocatable(): NodeCapacity {
    return this.capacity;
  }

  simulated(name: string): SimulatedNode | undefined {
    return this.byName.get(name);
  }

  /** The node's kubelet is running: registered and not stopped. */
  isRunning(name: string): boolean {
    const node = this.informer.get(name) as Node | undefined;
    return !!node && !isStopped(node);
  }

  async start(): Promise<void> {
    this.running = true;
    this.informer.start();
    await this.informer.waitForSync();
    // A stopped kubelet does not start: it records its start when the annotation goes (observe).
    for (const name of this.byName.keys()) if (!isStopped(this.informer.get(name) as Node | undefined)) this.events.aboutNode(name, kubeletStartEvents(name));
    // A node that fails to register now is tried again on the next tick.
    await Promise.all(
      [...this.byName.keys()].map((name) => this.sync(name).catch((err: unknown) => this.deps.log(`simulated kubelet ${name}: registration failed`, err))),
    );
    this.cancelTick = every(this.deps.clock, NODE_LEASE_RENEW_MS, () => {
      for (const name of this.byName.keys()) this.reconcile(name);
    });
  }

  stop(): void {
    this.running = false;
    this.cancelTick?.();
    this.cancelTick = null;
    this.informer.stop();
  }

  private observe(node: Node, old: Node | undefined): void {
    const name = node.metadata.name ?? '';
    if (!isStopped(node) && (!old || isStopped(old))) this.resumed(name);
    // A stopped kubelet that runs again has started again.
    if (!isStopped(node) && old && isStopped(old)) this.events.aboutNode(name, kubeletStartEvents(name));
    if (!isStopped(node) && !conditionsHealthy(node)) this.reconcile(name);
  }

  /** One look at a node at a time; the next tick or event looks again. */
  private reconcile(name: string): void {
    if (!this.running || this.busy.has(name)) return;
    this.busy.add(name);
    void this.sync(name)
      .catch((err: unknown) => this.deps.log(`simulated kubelet ${name}: node sync failed`, err))
      .finally(() => this.busy.delete(name));
  }

  private async sync(name: string): Promise<void> {
    const simulated = this.byName.get(name)!;
    const now = this.deps.clock.now();
    let node = this.informer.get(name) as Node | undefined;
    if (isStopped(node)) return;
    if (!node) {
      node = await this.register(simulated, now);
      this.lastPosted.set(name, now);
    } else if (!conditionsHealthy(node) || now - (this.lastPosted.get(name) ?? 0) >= NODE_STATUS_REPORT_MS) {
      await this.postStatus(simulated, now);
      this.lastPosted.set(name, now);
    }
    await this.renewLease(node, now);
  }

  private async register(simulated: SimulatedNode, now: number): Promise<Node> {
    try {
      return (await this.nodes.create(this.deps.own(''), registrationNode(simulated, this.capacity, this.kubeletVersion, timestampAt(now / 1000)), {
        dryRun: false,
      })) as Node;
    } catch (err) {
      if (!isStatusError(err) || err.code !== 409) throw err;
      return (await this.nodes.get(SYSTEM_READ_ALL, simulated.name, { resourceVersion: '', match: '' })) as Node;
    }
  }

  private async postStatus(simulated: SimulatedNode, now: number): Promise<void> {
    let events: KubeletEvent[] = [];
    await this.nodes.update(
      withInfo(this.deps.own(''), { subresource: 'status' }),
      simulated.name,
      (current: KubeObject) => {
        const node = current as Node;
        const posted = nodeStatus(simulated, this.capacity, this.kubeletVersion, timestampAt(now / 1000), node.status);
        events = nodeConditionEvents(simulated.name, node.status?.conditions, posted.conditions ?? []);
        node.status = { ...node.status, ...posted };
        return node;
      },
      { dryRun: false },
    );
    this.events.aboutNode(simulated.name, events);
  }

  /** Renews the lease, making it first (owned by the Node) when it is missing or belongs to an earlier Node of the name. */
  private async renewLease(node: Node, now: number): Promise<void> {
    const ctx = this.deps.own(NODE_LEASE_NAMESPACE);
    const fresh = nodeLease(node, now);
    try {
      await this.leases.update(
        ctx,
        node.metadata.name ?? '',
        (current: KubeObject) => {
          const lease = current as Lease;
          lease.spec = {
            ...lease.spec,
            holderIdentity: fresh.spec!.holderIdentity,
            leaseDurationSeconds: fresh.spec!.leaseDurationSeconds,
            renewTime: microTime(now),
          };
          lease.metadata.ownerReferences = fresh.metadata.ownerReferences;
          return lease;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) throw err;
      await this.leases.create(ctx, fresh, { dryRun: false });
    }
  }
}
