import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { ControllerRevision, StatefulSet, StatefulSetStatus } from '../../generated/types/apps/v1';
import type { Pod } from '../../generated/types/core/v1';
import type { FeatureGates } from '../../server/feature-gates';
import { systemReadContext, withInfo } from '../../registry/request-context';
import { controllerRefOf, newControllerRef } from '../pods/controller-ref';
import { controllerUidIndexers, ownedBy } from '../pods/controller-uid-index';
import { claimObjects } from '../pods/ref-manager';
import { selectorMatcher } from '../pods/selector';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { revisionsOf } from './controller-history';
import { StatefulSetControl } from './statefulset-control';
import { isMemberOf } from './statefulset-pods';
import { jsonClone } from '../../api/json-clone';

const RETRY_MS = 1000;
const NOT_DRY_RUN = { dryRun: false } as const;
const UNCHANGED = Symbol('unchanged');

/** Status fields the controller owns (inconsistentStatus compares these). */
const STATUS_FIELDS = [
  'observedGeneration',
  'replicas',
  'readyReplicas',
  'availableReplicas',
  'currentReplicas',
  'updatedReplicas',
  'currentRevision',
  'updateRevision',
  'collisionCount',
] as const;

/**
 * kube-controller-manager's statefulset-controller (pkg/controller/statefulset/stateful_set.go):
 * a set is synced when it or one of its pods changes; its pods are claimed (orphans named as its
 * members and matching its selector adopted), then StatefulSetControl brings them toward the spec
 * and the status is written when it changed.
 */
export class StatefulSetController extends QueueController {
  readonly name = 'statefulset-controller';
  protected readonly queue: WorkQueue;
  private readonly setInformer: CachedInformer;
  private readonly podInformer: CachedInformer;
  private readonly revisionInformer: CachedInformer;
  private readonly sets: ObjectStore;
  private readonly pods: ObjectStore;
  private readonly control: StatefulSetControl;
  private readonly timers = new Set<() => void>();

  constructor(
    private readonly deps: ControllerDeps,
    gates: Pick<FeatureGates, 'MaxUnavailableStatefulSet'>,
  ) {
    super();
    const { log, clock } = deps;
    this.sets = deps.store('apps', 'v1', 'statefulsets');
    this.pods = deps.store('', 'v1', 'pods');
    this.control = new StatefulSetControl(deps, deps.recorder('statefulset-controller'), gates);
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => log(`statefulset controller: syncing ${key} failed`, err),
      RETRY_MS,
      clock,
    );
    const enqueue = (obj: KubeObject): void => this.queue.add(objectKey(obj));
    this.setInformer = deps.informers.informer(this.sets, { added: enqueue, updated: (_, set) => enqueue(set), deleted: enqueue }, { name: 'statefulsets' });
    this.podInformer = deps.informers.informer(
      this.pods,
      {
        added: (pod) => this.podChanged(pod),
        updated: (old, pod) => {
          this.podChanged(pod);
          if (controllerRefOf(old)?.uid !== controllerRefOf(pod)?.uid || !jsonEqual(old.metadata.labels, pod.metadata.labels)) this.podChanged(old);
        },
        deleted: (pod) => this.podChanged(pod),
      },
      { name: 'pods', indexers: controllerUidIndexers },
    );
    this.revisionInformer = deps.informers.informer(deps.store('apps', 'v1', 'controllerrevisions'), {}, { name: 'controllerrevisions' });
  }

  protected get informers(): CachedInformer[] {
    return [this.revisionInformer, this.podInformer, this.setInformer];
  }

  override stop(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    super.stop();
  }

  /** A pod's controlling set, or for an orphan every set that could adopt it (getPodStatefulSets). */
  private podChanged(pod: KubeObject): void {
    const ref = controllerRefOf(pod);
    const namespace = pod.metadata.namespace ?? '';
    if (ref) {
      if (ref.kind !== 'StatefulSet') return;
      const set = this.setInformer.get(`${namespace}/${ref.name}`);
      if (set?.metadata.uid === ref.uid) this.queue.add(objectKey(set));
      return;
    }
    if (pod.metadata.deletionTimestamp) return;
    for (const set of this.setInformer.list() as StatefulSet[]) {
      if (set.metadata.namespace === namespace && isMemberOf(set, pod) && selectorMatcher(set.spec?.selector)(pod.metadata.labels))
        this.queue.add(objectKey(set));
    }
  }

  private async sync(key: string): Promise<boolean> {
    const cached = this.setInformer.get(key) as StatefulSet | undefined;
    if (!cached) return true;
    const set = jsonClone(cached);
    const pods = await this.claimPods(set);
    const revisions = revisionsOf(this.revisionInformer.list() as ControllerRevision[], set);
    const { status, recheckAfterMs, error } = await this.control.sync(set, pods, revisions);
    await this.writeStatus(set, status);
    if (error !== undefined) throw error;
    if (recheckAfterMs !== null) {
      const cancel = this.deps.clock.after(recheckAfterMs, () => {
        this.timers.delete(cancel);
        this.queue.add(key);
      });
      this.timers.add(cancel);
    }
    return true;
  }

  /** getPodsForStatefulSet: the namespace's pods the set controls, adopting orphans that are its members and match its selector. */
  private async claimPods(set: StatefulSet): Promise<Pod[]> {
    const namespace = set.metadata.namespace!;
    const matches = selectorMatcher(set.spec?.selector);
    const candidates = ownedBy<Pod>(this.podInformer, set, true);
    return claimObjects<Pod>(
      set,
      newControllerRef(set, 'apps/v1', 'StatefulSet'),
      (pod) => isMemberOf(set, pod) && matches(pod.metadata.labels),
      candidates,
      { store: this.pods, context: (ns) => this.deps.admitted(ns) },
      async () => {
        const fresh = await this.sets.get(systemReadContext(namespace), set.metadata.name!, { resourceVersion: '', match: '' });
        if (fresh.metadata.uid !== set.metadata.uid || fresh.metadata.deletionTimestamp) {
          throw new Error(`original StatefulSet ${namespace}/${set.metadata.name} is gone or being deleted`);
        }
      },
    );
  }

  /** updateStatefulSetStatus: written only when it changed, on the set of the same uid. */
  private async writeStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    if (STATUS_FIELDS.every((field) => set.status?.[field] === status[field])) return;
    const namespace = set.metadata.namespace!;
    try {
      await this.sets.update(
        withInfo(this.deps.own(namespace), { subresource: 'status' }),
        set.metadata.name!,
        (current) => {
          if (current.metadata.uid !== set.metadata.uid) throw UNCHANGED;
          return { ...current, status } as StatefulSet;
        },
        NOT_DRY_RUN,
      );
    } catch (err) {
      if (err === UNCHANGED || (isStatusError(err) && err.code === 404)) return;
      throw err;
    }
  }
}
