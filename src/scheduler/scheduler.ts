import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { Node, PersistentVolumeClaim, Pod, PodCondition, Service } from '../generated/types/core/v1';
import { bindPod } from '../resources/pod-binding';
import { withInfo } from '../registry/request-context';
import { timestampAt } from '../registry/time';
import { informerAndQueueProblem, type Controller } from '../controllers/runtime/controller';
import type { ControllerDeps } from '../controllers/runtime/controller-deps';
import type { EventRecorder } from '../controllers/runtime/event-recorder';
import { type CachedInformer, type InformerHandlers, objectKey } from '../controllers/runtime/informer';
import { every } from '../api/clock';
import { yieldToRequests } from '../controllers/runtime/turn-budget';
import { schedulePod, type ScheduleLookups } from './algorithm';
import { defaultSelector } from './default-selector';
import { ClusterCache } from './node-info';
import { SchedulingQueue } from './scheduling-queue';

/** The profile kapi's scheduler is: pods naming no scheduler get this one (by the API's defaulting). */
export const DEFAULT_SCHEDULER = 'default-scheduler';
/** Bindings in flight at once. */
const MAX_BINDING = 64;
const FLUSH_EVERY_MS = 30_000;
const FIELD_MANAGER = 'kube-scheduler';

const isOurs = (pod: Pod) => (pod.spec?.schedulerName ?? DEFAULT_SCHEDULER) === DEFAULT_SCHEDULER;
const toSchedule = (pod: Pod) =>
  !pod.spec?.nodeName && !pod.metadata.deletionTimestamp && isOurs(pod) && !(pod.spec?.schedulingGates?.length ?? 0) && !isTerminal(pod);
const isTerminal = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * kube-scheduler with its default profile, in process: watches pods and nodes, keeps per-node
 * sums of the bound pods' requests, and for each pod that names default-scheduler and no node,
 * filters and scores the nodes (src/scheduler/filters.ts, scores.ts) and binds it through
 * pods/binding; a pod no node fits gets PodScheduled=False with kube's message and a
 * FailedScheduling event, and is tried again when the cluster changes.
 */
export class Scheduler implements Controller {
  readonly name = 'kube-scheduler';
  private readonly cache = new ClusterCache();
  private readonly queue: SchedulingQueue;
  private readonly pods: CachedInformer;
  private readonly nodes: CachedInformer;
  private readonly others: CachedInformer[];
  private readonly podStore: ObjectStore;
  private readonly recorder: EventRecorder;
  private readonly lookups: ScheduleLookups;
  private running = false;
  private looping = false;
  private binding = 0;
  private bindingDone: (() => void) | null = null;
  private stopFlush: (() => void) | null = null;

  constructor(private readonly deps: ControllerDeps) {
    const { clock } = deps;
    this.podStore = deps.store('', 'v1', 'pods');
    this.recorder = deps.recorder(DEFAULT_SCHEDULER);
    this.queue = new SchedulingQueue(clock, () => this.kick());
    const informer = (group: string, resource: string, handlers: InformerHandlers = {}) =>
      deps.informers.informer(deps.store(group, 'v1', resource), handlers, { name: `scheduler ${resource}` });
    this.nodes = informer('', 'nodes', {
      added: (n) => {
        this.cache.setNode(n as Node);
        this.queue.moveAll();
      },
      updated: (old, n) => {
        this.cache.setNode(n as Node);
        if (schedulingRelevantChange(old as Node, n as Node)) this.queue.moveAll();
      },
      deleted: (n) => this.cache.removeNode(n.metadata.name ?? ''),
    });
    this.pods = informer('', 'pods', {
      added: (p) => this.podChanged(null, p as Pod),
      updated: (old, p) => this.podChanged(old as Pod, p as Pod),
      deleted: (p) => this.podDeleted(p as Pod),
    });
    const namespaces = informer('', 'namespaces');
    const claims = informer('', 'persistentvolumeclaims', { added: () => this.queue.moveAll(), updated: () => this.queue.moveAll() });
    const services = informer('', 'services');
    const controllers = {
      ReplicationController: informer('', 'replicationcontrollers'),
      ReplicaSet: informer('apps', 'replicasets'),
      StatefulSet: informer('apps', 'statefulsets'),
    };
    this.others = [namespaces, claims, services, ...Object.values(controllers)];
    const sources = {
      services: (namespace: string) => services.list().filter((s) => s.metadata.namespace === namespace) as Service[],
      controller: (kind: keyof typeof controllers, namespace: string, name: string) => controllers[kind].get(`${namespace}/${name}`),
    };
    this.lookups = {
      namespaceLabels: (ns) => namespaces.get(ns)?.metadata.labels,
      defaultSelector: (pod) => defaultSelector(pod, sources),
      claim: (ns, name) => claims.get(`${ns}/${name}`) as PersistentVolumeClaim | undefined,
    };
  }

  async start(): Promise<void> {
    this.running = true;
    // Nodes first, then what the cycle reads, pods last: the first pods are scheduled against a full picture.
    for (const informer of [this.nodes, ...this.others, this.pods]) {
      informer.start();
      await informer.waitForSync();
    }
    this.stopFlush = every(this.deps.clock, FLUSH_EVERY_MS, () => this.queue.flushLeftover());
    this.kick();
  }

  stop(): void {
    this.running = false;
    this.stopFlush?.();
    this.queue.stop();
    for (const informer of [this.pods, ...this.others, this.nodes]) informer.stop();
  }

  problem(): string | null {
    return informerAndQueueProblem([this.nodes, this.pods, ...this.others], null);
  }

  private podChanged(old: Pod | null, pod: Pod): void {
    const key = objectKey(pod);
    if (pod.spec?.nodeName) {
      this.queue.delete(key);
      if (isTerminal(pod)) this.cache.removePod(key);
      else this.cache.placePod(pod, pod.spec.nodeName);
      // A bound pod's new labels may satisfy (or stop blocking) another pod's affinity or spreading.
      if (old?.spec?.nodeName && !sameLabels(old, pod)) this.queue.moveAll();
      if (isTerminal(pod) && !(old && isTerminal(old))) this.queue.moveAll();
      return;
    }
    if (!toSchedule(pod)) this.queue.delete(key);
    // A change of status alone (this scheduler's own condition among them) is no reason to try again (isPodUpdated).
    else if (!old || specChanged(old, pod)) this.queue.add(key, pod.spec?.priority ?? 0);
  }

  private podDeleted(pod: Pod): void {
    const key = objectKey(pod);
    this.queue.delete(key);
    if (this.cache.nodeOf(key) !== undefined) {
      this.cache.removePod(key);
      this.queue.moveAll();
    }
  }

  private kick(): void {
    if (!this.running || this.looping) return;
    this.looping = true;
    setImmediate(() => void this.loop());
  }

  /** scheduleOne, over and over while pods wait: each scheduling cycle synchronous, its binding in the background. */
  private async loop(): Promise<void> {
    try {
      while (this.running) {
        if (this.binding >= MAX_BINDING) await new Promise<void>((resolve) => (this.bindingDone = resolve));
        const key = this.queue.pop();
        if (key === null) break;
        this.scheduleOne(key);
        await yieldToRequests();
      }
    } finally {
      this.looping = false;
    }
  }

  private scheduleOne(key: string): void {
    const pod = this.pods.get(key) as Pod | undefined;
    if (!pod || !toSchedule(pod)) {
      this.queue.done(key);
      return;
    }
    const decision = schedulePod(pod, this.cache, this.lookups);
    if ('message' in decision) {
      this.queue.failed(key, true);
      this.recorder.event(pod, 'Warning', 'FailedScheduling', decision.message);
      void this.setUnschedulable(pod, decision.message);
      return;
    }
    // Assumed on the node until the watch shows the binding, so the next pod sees it there.
    this.cache.placePod(pod, decision.node);
    this.binding++;
    void this.bind(pod, decision.node).finally(() => {
      this.binding--;
      this.bindingDone?.();
      this.bindingDone = null;
    });
  }

  /** DefaultBinder: one POST of pods/binding; a failed one forgets the assumed pod and tries again after a backoff. */
  private async bind(pod: Pod, node: string): Promise<void> {
    const key = objectKey(pod);
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const binding: KubeObject = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name, namespace, uid: pod.metadata.uid },
      target: { kind: 'Node', name: node },
    };
    const ctx = withInfo(this.deps.admitted(namespace), { verb: 'create', resource: 'pods', subresource: 'binding', name });
    try {
      await bindPod(ctx, this.podStore, name, binding, false);
      this.queue.done(key);
      this.recorder.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${node}`);
    } catch (err) {
      if (this.cache.nodeOf(key) === node && !(this.pods.get(key) as Pod | undefined)?.spec?.nodeName) this.cache.removePod(key);
      this.queue.failed(key, false);
      if (isStatusError(err) && err.code === 404) return;
      const message = `Binding rejected: ${err instanceof Error ? err.message : String(err)}`;
      this.recorder.event(pod, 'Warning', 'FailedScheduling', message);
      this.deps.log(`kube-scheduler: binding ${key} to ${node} failed`, err);
    }
  }

  /** updatePod: PodScheduled=False (reason Unschedulable) and no nominated node, written only when it changes. */
  private async setUnschedulable(pod: Pod, message: string): Promise<void> {
    const old = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (old?.status === 'False' && old.reason === 'Unschedulable' && old.message === message && !pod.status?.nominatedNodeName) return;
    const namespace = pod.metadata.namespace ?? '';
    const ctx = withInfo(this.deps.admitted(namespace), { verb: 'patch', resource: 'pods', subresource: 'status', name: pod.metadata.name ?? '' });
    try {
      await this.podStore.update(
        ctx,
        pod.metadata.name ?? '',
        (current) => {
          const live = current as Pod;
          if (live.spec?.nodeName || live.metadata.uid !== pod.metadata.uid) return live;
          const status = { ...(live.status ?? {}) };
          const conditions = status.conditions ?? [];
          const previous = conditions.find((c) => c.type === 'PodScheduled');
          const condition: PodCondition = {
            type: 'PodScheduled',
            status: 'False',
            lastProbeTime: null as unknown as string,
            lastTransitionTime: previous?.status === 'False' ? previous.lastTransitionTime : timestampAt(this.deps.clock.now() / 1000),
            reason: 'Unschedulable',
            message,
          };
          status.conditions = previous ? conditions.map((c) => (c === previous ? condition : c)) : [...conditions, condition];
          delete status.nominatedNodeName;
          return { ...live, status };
        },
        { dryRun: false, fieldManager: FIELD_MANAGER },
      );
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) this.deps.log(`kube-scheduler: could not record ${objectKey(pod)} unschedulable`, err);
    }
  }
}

/** What a pending pod's scheduling depends on: everything but its status and bookkeeping. */
function schedulingInput(pod: Pod): string {
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...meta } = pod.metadata;
  return JSON.stringify([meta, pod.spec]);
}

const specChanged = (old: Pod, pod: Pod) => schedulingInput(old) !== schedulingInput(pod);

function sameLabels(a: KubeObject, b: KubeObject): boolean {
  return JSON.stringify(a.metadata.labels ?? {}) === JSON.stringify(b.metadata.labels ?? {});
}

/** A node change that may let a waiting pod fit: its labels, taints, schedulability or allocatable. */
function schedulingRelevantChange(old: Node, node: Node): boolean {
  return (
    !sameLabels(old, node) ||
    JSON.stringify(old.spec?.taints ?? []) !== JSON.stringify(node.spec?.taints ?? []) ||
    !!old.spec?.unschedulable !== !!node.spec?.unschedulable ||
    JSON.stringify(old.status?.allocatable ?? {}) !== JSON.stringify(node.status?.allocatable ?? {})
  );
}
