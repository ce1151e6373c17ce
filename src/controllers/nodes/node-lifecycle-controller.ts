import { scheduledPods } from '../pods/scheduled-pods';
import type { ObjectStore } from '../../registry/types';
import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { Lease } from '../../generated/types/coordination/v1';
import type { Node, NodeCondition, Pod, Taint } from '../../generated/types/core/v1';
import { withInfo } from '../../registry/request-context';
import { timestampAt } from '../../registry/time';
import { every } from '../../api/clock';
import type { Controller } from '../runtime/controller';
import { informerAndQueueProblem } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import type { CachedInformer } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { CONDITION_TAINTS, sameTaint, TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE } from './taints';

/** kube-controller-manager's --node-startup-grace-period: a node that never posted Ready is given this long. */
const NODE_STARTUP_GRACE_MS = 60_000;
/** The conditions marked Unknown when the kubelet stops posting (not NetworkUnavailable: the control plane owns it). */
const KUBELET_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
/** computeZoneState: more than 2 unready nodes making up at least this share of the zone is a partial disruption. */
const UNHEALTHY_ZONE_THRESHOLD = 0.55;
/** Zones no bigger than this get no NoExecute taints at all during a partial disruption (--large-cluster-size-threshold). */
const LARGE_CLUSTER_THRESHOLD = 50;
const ZONE_LABEL = 'topology.kubernetes.io/zone';
const REGION_LABEL = 'topology.kubernetes.io/region';
const NO_EXECUTE_NOT_READY: Taint = { key: TAINT_NOT_READY, effect: 'NoExecute' };
const NO_EXECUTE_UNREACHABLE: Taint = { key: TAINT_UNREACHABLE, effect: 'NoExecute' };

interface Health {
  probeMs: number;
  readyHeartbeat: string | undefined;
  leaseRenew: string | undefined;
}

const readyOf = (node: Node): NodeCondition | undefined => node.status?.conditions?.find((c) => c.type === 'Ready');

/** nodetopology.GetZoneKey: region and zone, '' for a node with neither. */
const zoneOf = (node: Node): string => {
  const labels = node.metadata.labels ?? {};
  return labels[REGION_LABEL] || labels[ZONE_LABEL] ? `${labels[REGION_LABEL] ?? ''}:\x00:${labels[ZONE_LABEL] ?? ''}` : '';
};

/**
 * kube-controller-manager's node-lifecycle-controller (pkg/controller/nodelifecycle): every
 * --node-monitor-period it checks each node's heartbeat (its Ready condition's lastHeartbeatTime
 * or its Lease's renewTime); one silent for --node-monitor-grace-period gets its kubelet's
 * conditions set Unknown, its pods marked not Ready, and the unreachable (Unknown) or not-ready
 * (False) NoExecute taint, swapped straight when it already has the other; a Ready node loses
 * both. A zone whose nodes are all unready is in full disruption: its taints go and none is
 * added; a small zone in partial disruption gets no new ones. On every node change the
 * NoSchedule taints follow the conditions and spec.unschedulable (doNoScheduleTaintingPass).
 * Taints are added at once, not at the eviction rate limit (docs/divergences.md).
 */
export class NodeLifecycleController implements Controller {
  readonly name = 'node-lifecycle-controller';
  private readonly nodes: ObjectStore;
  private readonly pods: ObjectStore;
  private readonly nodeInformer: CachedInformer;
  private readonly leaseInformer: CachedInformer;
  private readonly podInformer: CachedInformer;
  private readonly queue: WorkQueue;
  private readonly recorder: EventRecorder;
  private readonly health = new Map<string, Health>();
  private readonly known = new Map<string, Node>();
  private cancelMonitor: (() => void) | null = null;
  private monitoring: Promise<void> | null = null;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly monitorPeriodMs: number,
    private readonly gracePeriodMs: number,
  ) {
    this.nodes = deps.store('', 'v1', 'nodes');
    this.pods = deps.store('', 'v1', 'pods');
    this.recorder = deps.recorder('node-controller');
    const { log, clock } = deps;
    this.queue = new WorkQueue(
      (name) => this.noScheduleTaintingPass(name),
      (name, err) => log(`node lifecycle: node ${name} failed`, err),
      1000,
      clock,
    );
    this.nodeInformer = deps.informers.informer(
      this.nodes,
      { added: (node) => this.queue.add(node.metadata.name ?? ''), updated: (_, node) => this.queue.add(node.metadata.name ?? '') },
      { name: 'nodes' },
    );
    this.leaseInformer = deps.informers.informer(deps.store('coordination.k8s.io', 'v1', 'leases'), {}, { name: 'node leases', namespace: 'kube-node-lease' });
    this.podInformer = deps.informers.informer(this.pods, {}, { name: 'pods', filter: scheduledPods });
  }

  async start(): Promise<void> {
    this.queue.start();
    for (const informer of [this.leaseInformer, this.podInformer, this.nodeInformer]) {
      informer.start();
      await informer.waitForSync();
    }
    const monitor = (): void => {
      if (this.monitoring) return;
      this.monitoring = this.monitorNodeHealth()
        .catch((err: unknown) => this.deps.log('node lifecycle: monitoring node health failed', err))
        .finally(() => (this.monitoring = null));
    };
    monitor();
    this.cancelMonitor = every(this.deps.clock, this.monitorPeriodMs, monitor);
  }

  stop(): void {
    this.cancelMonitor?.();
    this.cancelMonitor = null;
    for (const informer of [this.nodeInformer, this.podInformer, this.leaseInformer]) informer.stop();
    this.queue.stop();
  }

  problem(): string | null {
    return informerAndQueueProblem([this.nodeInformer, this.leaseInformer, this.podInformer], this.queue);
  }

  /** nodeutil.RecordNodeEvent: a reference without a resourceVersion, and the node named before the event. */
  private recordNodeEvent(node: Node, reason: string, event: string): void {
    const name = node.metadata.name ?? '';
    this.recorder.eventAbout({ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid }, 'Normal', reason, `Node ${name} event: ${event}`);
  }

  private async monitorNodeHealth(): Promise<void> {
    const nodes = this.nodeInformer.list() as Node[];
    const names = new Set(nodes.map((n) => n.metadata.name ?? ''));
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      if (this.known.has(name)) continue;
      this.known.set(name, node);
      this.recordNodeEvent(node, 'RegisteredNode', `Registered Node ${name} in Controller`);
      await this.swapTaints(node, [], [NO_EXECUTE_NOT_READY, NO_EXECUTE_UNREACHABLE]);
    }
    for (const [name, node] of this.known) {
      if (names.has(name)) continue;
      this.recordNodeEvent(node, 'RemovingNode', `Removing Node ${name} from Controller`);
      this.known.delete(name);
      this.health.delete(name);
    }
    const zones = new Map<string, { ready: number; notReady: number; nodes: Node[] }>();
    const observed = new Map<string, string>();
    for (const node of nodes) {
      const { observed: before, current } = await this.updateNodeHealth(node);
      observed.set(node.metadata.name ?? '', before);
      const zone = zones.get(zoneOf(node)) ?? { ready: 0, notReady: 0, nodes: [] };
      if (current === 'True') zone.ready++;
      else zone.notReady++;
      zone.nodes.push(node);
      zones.set(zoneOf(node), zone);
      if (current !== 'True' && before === 'True') {
        this.recorder.event(node, 'Normal', 'NodeNotReady', `Node ${node.metadata.name} status is now: NodeNotReady`);
        await this.markPodsNotReady(node.metadata.name ?? '');
      }
    }
    for (const zone of zones.values()) {
      const full = zone.ready === 0 && zone.notReady > 0;
      const partial = !full && zone.notReady > 2 && zone.notReady / (zone.ready + zone.notReady) >= UNHEALTHY_ZONE_THRESHOLD;
      for (const node of zone.nodes) {
        const live = (this.nodeInformer.get(node.metadata.name ?? '') as Node | undefined) ?? node;
        const before = observed.get(node.metadata.name ?? '');
        if (full || before === 'True') await this.swapTaints(live, [], [NO_EXECUTE_NOT_READY, NO_EXECUTE_UNREACHABLE]);
        else if (partial && zone.nodes.length <= LARGE_CLUSTER_THRESHOLD) continue;
        else if (before === 'False') await this.swapTaints(live, [NO_EXECUTE_NOT_READY], [NO_EXECUTE_UNREACHABLE]);
        else await this.swapTaints(live, [NO_EXECUTE_UNREACHABLE], [NO_EXECUTE_NOT_READY]);
      }
    }
  }

  /**
   * tryUpdateNodeHealth: a new heartbeat (the Ready condition's, or a renewed Lease) moves the
   * probe time to now; past the grace period the kubelet's conditions become Unknown. Gives the
   * Ready status as observed before and as it is now.
   */
  private async updateNodeHealth(node: Node): Promise<{ observed: string; current: string }> {
    const name = node.metadata.name ?? '';
    const now = this.deps.clock.now();
    const ready = readyOf(node);
    const lease = this.leaseInformer.get(`kube-node-lease/${name}`) as Lease | undefined;
    let health = this.health.get(name);
    if (!health) {
      health = {
        probeMs: ready ? now : Date.parse(node.metadata.creationTimestamp ?? '') || now,
        readyHeartbeat: ready?.lastHeartbeatTime,
        leaseRenew: undefined,
      };
      this.health.set(name, health);
    } else if (ready && ready.lastHeartbeatTime !== health.readyHeartbeat) {
      health.probeMs = now;
      health.readyHeartbeat = ready.lastHeartbeatTime;
    }
    const renew = lease?.spec?.renewTime;
    if (renew && (health.leaseRenew === undefined || Date.parse(renew) > Date.parse(health.leaseRenew))) {
      health.leaseRenew = renew;
      health.probeMs = now;
    }
    const observed = ready?.status ?? 'Unknown';
    const grace = ready ? this.gracePeriodMs : NODE_STARTUP_GRACE_MS;
    const allUnknown = KUBELET_CONDITIONS.every((t) => node.status?.conditions?.some((c) => c.type === t && c.status === 'Unknown'));
    if (now <= health.probeMs + grace || allUnknown) return { observed, current: observed };
    const at = timestampAt(now / 1000);
    try {
      const updated = await this.nodes.update(
        withInfo(this.deps.own(''), { subresource: 'status' }),
        name,
        (current: KubeObject) => {
          const live = current as Node;
          const conditions = [...(live.status?.conditions ?? [])];
          for (const type of KUBELET_CONDITIONS) {
            const i = conditions.findIndex((c) => c.type === type);
            if (i < 0)
              conditions.push({
                type,
                status: 'Unknown',
                reason: 'NodeStatusNeverUpdated',
                message: 'Kubelet never posted node status.',
                lastHeartbeatTime: live.metadata.creationTimestamp ?? undefined,
                lastTransitionTime: at,
              });
            else if (conditions[i].status !== 'Unknown')
              conditions[i] = {
                ...conditions[i],
                status: 'Unknown',
                reason: 'NodeStatusUnknown',
                message: 'Kubelet stopped posting node status.',
                lastTransitionTime: at,
              };
          }
          live.status = { ...live.status, conditions };
          return live;
        },
        { dryRun: false },
      );
      health.readyHeartbeat = readyOf(updated.object as Node)?.lastHeartbeatTime;
      return { observed, current: 'Unknown' };
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return { observed, current: observed };
      throw err;
    }
  }

  /** MarkPodsNotReady: the Ready condition of every pod on the node goes False, with a NodeNotReady event on each. */
  private async markPodsNotReady(nodeName: string): Promise<void> {
    const pods = (this.podInformer.list() as Pod[]).filter((p) => p.spec?.nodeName === nodeName);
    const at = timestampAt(this.deps.clock.now() / 1000);
    await Promise.all(
      pods.map(async (pod) => {
        if (!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'False')) return;
        try {
          await this.pods.update(
            withInfo(this.deps.own(pod.metadata.namespace ?? ''), { subresource: 'status' }),
            pod.metadata.name ?? '',
            (current: KubeObject) => {
              const live = current as Pod;
              live.status = {
                ...live.status,
                conditions: (live.status?.conditions ?? []).map((c) =>
                  c.type === 'Ready' && c.status !== 'False' ? { ...c, status: 'False', lastTransitionTime: at } : c,
                ),
              };
              return live;
            },
            { dryRun: false },
          );
          this.recorder.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
        } catch (err) {
          if (!isStatusError(err) || err.code !== 404) throw err;
        }
      }),
    );
  }

  /** doNoScheduleTaintingPass: the node's NoSchedule condition and unschedulable taints are exactly what its status and spec call for. */
  private async noScheduleTaintingPass(name: string): Promise<boolean> {
    const node = this.nodeInformer.get(name) as Node | undefined;
    if (!node) return true;
    const wanted: Taint[] = [];
    for (const c of node.status?.conditions ?? []) {
      const key = CONDITION_TAINTS[c.type ?? '']?.[c.status ?? ''];
      if (key) wanted.push({ key, effect: 'NoSchedule' });
    }
    if (node.spec?.unschedulable) wanted.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
    const managed = (node.spec?.taints ?? []).filter(
      (t) =>
        t.effect === 'NoSchedule' && (t.key === TAINT_UNSCHEDULABLE || Object.values(CONDITION_TAINTS).some((m) => Object.values(m).includes(t.key ?? ''))),
    );
    const add = wanted.filter((w) => !managed.some((t) => sameTaint(t, w)));
    const remove = managed.filter((t) => !wanted.some((w) => sameTaint(t, w)));
    if (add.length > 0 || remove.length > 0) await this.swapTaints(node, add, remove);
    return true;
  }

  /** SwapNodeControllerTaint: adds the taints (timeAdded now) and removes the others, on the live node; nothing when there is nothing to change. */
  private async swapTaints(node: Node, add: Taint[], remove: Taint[]): Promise<void> {
    const taints = node.spec?.taints ?? [];
    if (!add.some((a) => !taints.some((t) => sameTaint(t, a))) && !remove.some((r) => taints.some((t) => sameTaint(t, r)))) return;
    const at = timestampAt(this.deps.clock.now() / 1000);
    try {
      await this.nodes.update(
        this.deps.own(''),
        node.metadata.name ?? '',
        (current: KubeObject) => {
          const live = current as Node;
          const kept = (live.spec?.taints ?? []).filter((t) => !remove.some((r) => sameTaint(t, r)));
          const added = add.filter((a) => !kept.some((t) => sameTaint(t, a))).map((a) => (a.effect === 'NoExecute' ? { ...a, timeAdded: at } : { ...a }));
          const next = [...kept, ...added];
          live.spec = { ...live.spec, taints: next.length > 0 ? next : undefined };
          return live;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) throw err;
    }
  }
}
