import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { ControllerRevision, DaemonSet, DaemonSetStatus } from '../../generated/types/apps/v1';
import type { Node, Pod } from '../../generated/types/core/v1';
import { systemReadContext, withInfo } from '../../registry/request-context';
import { controllerRefOf, newControllerRef } from '../pods/controller-ref';
import { controllerUidIndexers, ownedBy } from '../pods/controller-uid-index';
import { ControllerExpectations } from '../pods/expectations';
import { isPodTerminal } from '../pods/pod-conditions';
import { PodControl } from '../pods/pod-control';
import { claimObjects } from '../pods/ref-manager';
import { selectorMatcher } from '../pods/selector';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import {
  computeHash,
  createRevision,
  deleteRevision,
  podRevisionsInUse,
  POD_REVISION_LABEL,
  renumberRevision,
  revisionsOf,
  templatePatch,
  type HistoryWriter,
} from './controller-history';
import { DaemonSetControl, type NodePods } from './daemonset-control';
import { targetNodeName } from './daemonset-nodes';
import { jsonClone } from '../../api/json-clone';
import { compareGoStrings } from '../../api/go-string-order';

const RETRY_MS = 1000;
const NOT_DRY_RUN = { dryRun: false } as const;
const UNCHANGED = Symbol('unchanged');

const STATUS_FIELDS = [
  'observedGeneration',
  'currentNumberScheduled',
  'numberMisscheduled',
  'desiredNumberScheduled',
  'numberReady',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
  'collisionCount',
] as const;

/** snapshot: the set's template as a revision `<set>-<hash>`, the hash of the template (controller.ComputeHash) in its controller-revision-hash label. */
function snapshot(ds: DaemonSet, number: number, collisionCount: number): ControllerRevision {
  const hash = computeHash(ds.spec?.template ?? {}, collisionCount || undefined);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${ds.metadata.name}-${hash}`,
      namespace: ds.metadata.namespace,
      labels: { ...ds.spec?.template?.metadata?.labels, [POD_REVISION_LABEL]: hash },
      ...(ds.metadata.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
      ownerReferences: [newControllerRef(ds, 'apps/v1', 'DaemonSet')],
    },
    data: templatePatch(ds.spec?.template),
    revision: number,
  };
}

/**
 * kube-controller-manager's daemonset-controller (pkg/controller/daemon): one pod per node that
 * should run it (node affinity, taints against the pod's and the daemon tolerations), each pod
 * bound for its node by a `metadata.name In [node]` node affinity for the scheduler to honour;
 * rolling updates and OnDelete; history in ControllerRevisions, as `kubectl rollout history|undo`
 * reads it.
 */
export class DaemonSetController extends QueueController {
  readonly name = 'daemonset-controller';
  protected readonly queue: WorkQueue;
  private readonly setInformer: CachedInformer;
  private readonly podInformer: CachedInformer;
  private readonly nodeInformer: CachedInformer;
  private readonly revisionInformer: CachedInformer;
  private readonly sets: ObjectStore;
  private readonly pods: ObjectStore;
  private readonly history: HistoryWriter;
  private readonly expectations: ControllerExpectations;
  private readonly recorder: EventRecorder;
  private readonly control: DaemonSetControl;
  private readonly timers = new Set<() => void>();

  constructor(private readonly deps: ControllerDeps) {
    super();
    const { log, clock } = deps;
    this.sets = deps.store('apps', 'v1', 'daemonsets');
    this.pods = deps.store('', 'v1', 'pods');
    this.history = { revisions: deps.store('apps', 'v1', 'controllerrevisions'), context: (ns) => deps.admitted(ns) };
    this.expectations = new ControllerExpectations(clock);
    this.recorder = deps.recorder('daemonset-controller');
    this.control = new DaemonSetControl(new PodControl(this.pods, deps, this.recorder), this.expectations, this.recorder, () => clock.now());
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => log(`daemonset controller: syncing ${key} failed`, err),
      RETRY_MS,
      clock,
    );
    const enqueue = (obj: KubeObject): void => this.queue.add(objectKey(obj));
    const enqueueAll = (): void => {
      for (const ds of this.setInformer.list()) enqueue(ds);
    };
    this.setInformer = deps.informers.informer(
      this.sets,
      {
        added: enqueue,
        updated: (_, ds) => enqueue(ds),
        deleted: (ds) => {
          this.expectations.delete(objectKey(ds));
          enqueue(ds);
        },
      },
      { name: 'daemonsets' },
    );
    this.podInformer = deps.informers.informer(
      this.pods,
      {
        added: (pod) => this.podChanged(pod, true),
        updated: (old, pod) => {
          this.podChanged(pod, false);
          if (controllerRefOf(old)?.uid !== controllerRefOf(pod)?.uid || !jsonEqual(old.metadata.labels, pod.metadata.labels)) this.podChanged(old, false);
        },
        deleted: (pod) => this.podChanged(pod, false),
      },
      { name: 'pods', indexers: controllerUidIndexers },
    );
    // A node's labels, taints or existence decide which sets it runs.
    this.nodeInformer = deps.informers.informer(
      deps.store('', 'v1', 'nodes'),
      {
        added: enqueueAll,
        updated: (old, node) => {
          if (!jsonEqual(old.metadata.labels, node.metadata.labels) || !jsonEqual((old as Node).spec, (node as Node).spec)) enqueueAll();
        },
        deleted: enqueueAll,
      },
      { name: 'nodes' },
    );
    this.revisionInformer = deps.informers.informer(this.history.revisions, {}, { name: 'controllerrevisions' });
  }

  protected get informers(): CachedInformer[] {
    return [this.revisionInformer, this.nodeInformer, this.podInformer, this.setInformer];
  }

  override stop(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    super.stop();
  }

  private podChanged(pod: KubeObject, added: boolean): void {
    const ref = controllerRefOf(pod);
    const namespace = pod.metadata.namespace ?? '';
    if (ref) {
      if (ref.kind !== 'DaemonSet') return;
      const ds = this.setInformer.get(`${namespace}/${ref.name}`);
      if (ds?.metadata.uid !== ref.uid) return;
      if (added) this.expectations.creationObserved(objectKey(ds));
      this.queue.add(objectKey(ds));
      return;
    }
    if (pod.metadata.deletionTimestamp) return;
    for (const ds of this.setInformer.list() as DaemonSet[]) {
      if (ds.metadata.namespace === namespace && selectorMatcher(ds.spec?.selector)(pod.metadata.labels)) this.queue.add(objectKey(ds));
    }
  }

  private async sync(key: string): Promise<boolean> {
    const cached = this.setInformer.get(key) as DaemonSet | undefined;
    if (!cached) {
      this.expectations.delete(key);
      return true;
    }
    const ds = jsonClone(cached);
    const selector = ds.spec?.selector;
    if (!selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) {
      this.recorder.event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return true;
    }
    if (ds.metadata.deletionTimestamp) return true;
    const nodes = (this.nodeInformer.list() as Node[]).sort((a, b) => compareGoStrings(a.metadata.name ?? '', b.metadata.name ?? ''));
    const { current, old, collisionCount } = await this.constructHistory(ds);
    const hash = current.metadata.labels?.[POD_REVISION_LABEL] ?? '';
    if (this.expectations.satisfied(key)) {
      await this.control.manage(ds, key, nodes, await this.nodePods(ds), hash);
      if (this.expectations.satisfied(key) && (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        await this.control.rollingUpdate(ds, key, nodes, await this.nodePods(ds), hash);
      }
      await this.cleanupHistory(ds, old);
    }
    const status = this.control.status(ds, nodes, await this.nodePods(ds), hash);
    // A set that never met a hash collision has no count (a nil pointer in kube).
    if (collisionCount !== (ds.status?.collisionCount ?? 0)) status.collisionCount = collisionCount;
    await this.writeStatus(ds, status);
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0 && status.numberReady !== status.numberAvailable) this.recheck(key, minReadySeconds * 1000);
    return true;
  }

  private recheck(key: string, afterMs: number): void {
    const cancel = this.deps.clock.after(afterMs, () => {
      this.timers.delete(cancel);
      this.queue.add(key);
    });
    this.timers.add(cancel);
  }

  /** getNodesToDaemonPods: the set's pods (orphans it selects adopted) by the node they are on or bound for; finished pods being deleted are left out. */
  private async nodePods(ds: DaemonSet): Promise<NodePods> {
    const namespace = ds.metadata.namespace!;
    const matches = selectorMatcher(ds.spec?.selector);
    const candidates = ownedBy<Pod>(this.podInformer, ds, true);
    const pods = await claimObjects<Pod>(
      ds,
      newControllerRef(ds, 'apps/v1', 'DaemonSet'),
      (pod) => matches(pod.metadata.labels),
      candidates,
      { store: this.pods, context: (ns) => this.deps.admitted(ns) },
      async () => {
        const fresh = await this.sets.get(systemReadContext(namespace), ds.metadata.name!, { resourceVersion: '', match: '' });
        if (fresh.metadata.uid !== ds.metadata.uid || fresh.metadata.deletionTimestamp) {
          throw new Error(`original DaemonSet ${namespace}/${ds.metadata.name} is gone or being deleted`);
        }
      },
    );
    const byNode: NodePods = new Map();
    for (const pod of pods) {
      if (isPodTerminal(pod) && pod.metadata.deletionTimestamp) continue;
      const node = targetNodeName(pod);
      if (node === null) continue;
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    return byNode;
  }

  /**
   * constructHistory: the revision whose data is the set's template now is current (the newest of
   * several; renumbered past the others when it is older, as after `rollout undo`), else a new one
   * is made; the rest are old.
   */
  private async constructHistory(ds: DaemonSet): Promise<{ current: ControllerRevision; old: ControllerRevision[]; collisionCount: number }> {
    const revisions = revisionsOf(this.revisionInformer.list() as ControllerRevision[], ds);
    const data = templatePatch(ds.spec?.template);
    const matching = revisions.filter((r) => jsonEqual(r.data, data));
    const old = revisions.filter((r) => !matching.includes(r));
    const number = Math.max(0, ...old.map((r) => r.revision ?? 0)) + 1;
    let collisionCount = ds.status?.collisionCount ?? 0;
    let current: ControllerRevision;
    if (matching.length === 0) {
      ({ revision: current, collisionCount } = await createRevision(this.history, (count) => snapshot(ds, number, count), collisionCount));
    } else {
      // dedupCurHistories: the newest stays; the others go.
      current = matching.at(-1)!;
      for (const duplicate of matching.slice(0, -1)) await deleteRevision(this.history, duplicate);
      if ((current.revision ?? 0) < number) current = await renumberRevision(this.history, current, number);
    }
    return { current, old, collisionCount };
  }

  /** cleanupHistory: old revisions beyond revisionHistoryLimit go, oldest first, except those live pods are at. */
  private async cleanupHistory(ds: DaemonSet, old: ControllerRevision[]): Promise<void> {
    let toKill = old.length - (ds.spec?.revisionHistoryLimit ?? 10);
    if (toKill <= 0) return;
    const live = podRevisionsInUse([...(await this.nodePods(ds)).values()].flat());
    for (const revision of old) {
      if (toKill <= 0) break;
      if (live.has(revision.metadata.labels?.[POD_REVISION_LABEL] ?? '')) continue;
      await deleteRevision(this.history, revision);
      toKill--;
    }
  }

  private async writeStatus(ds: DaemonSet, status: DaemonSetStatus): Promise<void> {
    if (STATUS_FIELDS.every((field) => ds.status?.[field] === status[field])) return;
    const namespace = ds.metadata.namespace!;
    try {
      await this.sets.update(
        withInfo(this.deps.own(namespace), { subresource: 'status' }),
        ds.metadata.name!,
        (current) => {
          if (current.metadata.uid !== ds.metadata.uid) throw UNCHANGED;
          return { ...current, status } as DaemonSet;
        },
        NOT_DRY_RUN,
      );
    } catch (err) {
      if (err === UNCHANGED || (isStatusError(err) && err.code === 404)) return;
      throw err;
    }
  }
}
