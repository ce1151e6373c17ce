import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { internalError, isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { Pod } from '../../generated/types/core/v1';
import type { FeatureGates } from '../../server/feature-gates';
import { systemReadContext, withInfo } from '../../registry/request-context';
import { controllerRefOf, newControllerRef } from '../pods/controller-ref';
import { CONTROLLER_UID_INDEX, controllerUidIndexers, ownedBy } from '../pods/controller-uid-index';
import { ControllerExpectations } from '../pods/expectations';
import { isPodReady, isPodTerminating } from '../pods/pod-conditions';
import { podFacts, podMatches } from '../pods/pod-facts';
import { PodControl } from '../pods/pod-control';
import { claimObjects } from '../pods/ref-manager';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { yieldToRequests } from '../runtime/turn-budget';
import { DelayedAdds } from './delayed-adds';
import { podsToDelete } from './pod-ranking';
import { calculateStatus } from './replica-set-status';
import type { Replicated, ReplicatedKind } from './replicated-kind';

/** kube-controller-manager's --replicaset-controller / RC burst: at most this many creations or deletions per sync. */
const BURST_REPLICAS = 500;
/** controller.SlowStartInitialBatchSize. */
const SLOW_START_INITIAL_BATCH = 1;
const RETRY_MS = 1000;

/**
 * slowStartBatch: calls `fn` count times in batches of 1, 2, 4, …, each batch in parallel, stopping
 * after the first batch with a failure. Returns how many calls succeeded and the first error.
 */
export async function slowStartBatch(count: number, fn: () => Promise<void>): Promise<{ successes: number; error: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let size = Math.min(remaining, SLOW_START_INITIAL_BATCH); size > 0; size = Math.min(2 * size, remaining)) {
    // The batch's calls run in parallel, each started in internal work's turn of the event loop.
    const results = await Promise.allSettled(Array.from({ length: size }, () => yieldToRequests().then(fn)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += size - failures.length;
    if (failures.length > 0) return { successes, error: failures[0].reason };
    remaining -= size;
  }
  return { successes, error: null };
}

/** Whether `apiVersion`'s part before any '/' is `group` (an owner's pod events call this; split would allocate). */
const sameGroup = (apiVersion: string, group: string): boolean =>
  apiVersion.startsWith(group) && (apiVersion.length === group.length || apiVersion.charCodeAt(group.length) === 47); // '/'

const namespaceTerminating = (err: unknown): boolean =>
  isStatusError(err) && (err.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

/**
 * kube's ReplicaSet controller (pkg/controller/replicaset), also run over v1 ReplicationControllers:
 * keeps `replicas` active pods from the template, adopting orphans its selector matches and
 * releasing owned pods it no longer matches; creates in slow-start batches, deletes the
 * lowest-ranked pods first, waits on expectations so a stale cache never doubles its work, and
 * writes status (replicas, fullyLabeled, ready, available after minReadySeconds, the
 * ReplicaFailure condition).
 */
export class ReplicaSetController extends QueueController {
  readonly name: string;
  protected readonly queue: WorkQueue;
  private readonly sets: CachedInformer;
  private readonly pods: CachedInformer;
  private readonly store: ObjectStore;
  private readonly podStore: ObjectStore;
  private readonly podControl: PodControl;
  private readonly expectations: ControllerExpectations;
  private readonly delayed: DelayedAdds;
  /** The first part of the kind's apiVersion ('apps', or 'v1' for ReplicationControllers), as owner references are compared. */
  private readonly group: string;
  /** Each set version's selector as a predicate, so that a pod's answer to it is kept (podMatches). */
  private readonly matchers = new WeakMap<Replicated, (labels: Record<string, string> | undefined) => boolean>();
  /** Pods whose deletion was counted when it started (kube tracks deleted pods' keys, UIDTrackingControllerExpectations). */
  private readonly counted = new Set<string>();

  /** Whether status.terminatingReplicas is counted: the kind has it and the DeploymentReplicaSetTerminatingReplicas gate is on. */
  private readonly countsTerminating: boolean;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly kind: ReplicatedKind,
    gates: Pick<FeatureGates, 'DeploymentReplicaSetTerminatingReplicas'>,
  ) {
    super();
    this.countsTerminating = kind.hasTerminatingReplicas && gates.DeploymentReplicaSetTerminatingReplicas;
    this.name = kind.controllerName;
    this.group = kind.apiVersion.split('/')[0];
    this.store = deps.store(kind.group, kind.version, kind.resource);
    this.podStore = deps.store('', 'v1', 'pods');
    this.podControl = new PodControl(this.podStore, deps, deps.recorder(kind.component));
    this.expectations = new ControllerExpectations(deps.clock);
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.log(`${this.name}: syncing ${key} failed`, err),
      RETRY_MS,
      deps.clock,
    );
    this.delayed = new DelayedAdds(this.queue, deps.clock);
    const enqueue = (set: KubeObject) => this.queue.add(objectKey(set));
    this.sets = deps.informers.informer(
      this.store,
      {
        added: enqueue,
        updated: (_, set) => enqueue(set),
        deleted: (set) => {
          this.expectations.delete(objectKey(set));
          enqueue(set);
        },
      },
      { name: kind.resource, indexers: controllerUidIndexers },
    );
    this.pods = deps.informers.informer(
      this.podStore,
      { added: (pod) => this.podAdded(pod), updated: (old, pod) => this.podUpdated(old, pod), deleted: (pod) => this.podDeleted(pod) },
      { name: 'pods', indexers: controllerUidIndexers },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.pods, this.sets];
  }

  override stop(): void {
    super.stop();
    this.delayed.stop();
  }

  /** resolveControllerRef: the set a pod's controller reference names, if it is one of ours (its kind, and its apiVersion's first part). */
  private owner(pod: KubeObject): Replicated | undefined {
    const ref = controllerRefOf(pod);
    if (!ref || ref.kind !== this.kind.kind || !sameGroup(ref.apiVersion, this.group)) return undefined;
    const set = this.sets.get(`${pod.metadata.namespace}/${ref.name}`) as Replicated | undefined;
    return set?.metadata.uid === ref.uid ? set : undefined;
  }

  private matcher(set: Replicated): (labels: Record<string, string> | undefined) => boolean {
    let matcher = this.matchers.get(set);
    if (matcher === undefined) this.matchers.set(set, (matcher = this.kind.matcher(set)));
    return matcher;
  }

  /** getPodReplicaSets: the sets whose selector matches an orphan. */
  private matching(pod: KubeObject): Replicated[] {
    return (this.sets.list() as Replicated[]).filter((set) => set.metadata.namespace === pod.metadata.namespace && this.matcher(set)(pod.metadata.labels));
  }

  private podAdded(pod: KubeObject): void {
    if (pod.metadata.deletionTimestamp) return this.podTerminating(pod);
    if (controllerRefOf(pod)) {
      const set = this.owner(pod);
      if (!set) return;
      this.expectations.creationObserved(objectKey(set));
      this.queue.add(objectKey(set));
      return;
    }
    for (const set of this.matching(pod)) this.queue.add(objectKey(set));
  }

  private podUpdated(old: KubeObject, pod: KubeObject): void {
    if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
    const labelsChanged = !jsonEqual(old.metadata.labels ?? {}, pod.metadata.labels ?? {});
    const ref = controllerRefOf(pod);
    const oldRef = controllerRefOf(old);
    const refChanged = !jsonEqual(ref ?? null, oldRef ?? null);
    if ((refChanged || labelsChanged) && oldRef) {
      const previous = this.owner(old);
      if (previous) this.queue.add(objectKey(previous));
    }
    if (pod.metadata.deletionTimestamp && !old.metadata.deletionTimestamp) return this.podTerminating(pod);
    if (ref) {
      const set = this.owner(pod);
      if (!set) return;
      this.queue.add(objectKey(set));
      const minReadySeconds = set.spec?.minReadySeconds ?? 0;
      // Availability comes with time, not with a pod change: look again once it should have come.
      if (!isPodReady(old as Pod) && isPodReady(pod as Pod) && minReadySeconds > 0) this.delayed.addAfter(objectKey(set), minReadySeconds * 1000 + 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const set of this.matching(pod)) this.queue.add(objectKey(set));
  }

  /** A pod being deleted counts as deleted at once (kube's updatePod calls deletePod). */
  private podTerminating(pod: KubeObject): void {
    const set = this.owner(pod);
    if (!set || this.counted.has(pod.metadata.uid!)) return;
    this.counted.add(pod.metadata.uid!);
    this.expectations.deletionObserved(objectKey(set));
    this.queue.add(objectKey(set));
  }

  /** deletePod: its removal, unless its deletion was already counted when it started. */
  private podDeleted(pod: KubeObject): void {
    const counted = this.counted.delete(pod.metadata.uid!);
    const set = this.owner(pod);
    if (!set) return;
    if (!counted) this.expectations.deletionObserved(objectKey(set));
    this.queue.add(objectKey(set));
  }

  private async sync(key: string): Promise<boolean> {
    const set = this.sets.get(key) as Replicated | undefined;
    if (!set) {
      this.expectations.delete(key);
      return true;
    }
    const needsSync = this.expectations.satisfied(key);
    const matches = this.matcher(set);
    const active = ownedBy<Pod>(this.pods, set, true).filter((pod) => podFacts(pod).active);
    const pods = await claimObjects<Pod>(
      set,
      newControllerRef(set, this.kind.apiVersion, this.kind.kind),
      (pod) => podMatches(podFacts(pod), matches),
      active,
      { store: this.podStore, context: (ns) => this.deps.admitted(ns) },
      () => this.canAdopt(set),
      (pod) => podFacts(pod).controllerUid,
    );
    let manageError: unknown = null;
    if (needsSync && !set.metadata.deletionTimestamp) {
      try {
        await this.manageReplicas(key, pods, set);
      } catch (err) {
        manageError = err;
      }
    }
    const now = this.deps.clock.now();
    const status = calculateStatus(set, pods, this.terminatingCount(set, matches), manageError, now);
    const updated = await this.writeStatus(set, status);
    if (manageError !== null) throw manageError;
    const minReadySeconds = updated.spec?.minReadySeconds ?? 0;
    const replicas = updated.spec?.replicas ?? 1;
    if (minReadySeconds > 0 && updated.status?.readyReplicas === replicas && updated.status?.availableReplicas !== replicas) {
      this.delayed.addAfter(key, minReadySeconds * 1000);
    }
    return true;
  }

  /** syncReplicaSet's FilterTerminatingPods and FilterClaimedPods: the pods it controls and selects that are still terminating. */
  private terminatingCount(set: Replicated, matches: (labels: Record<string, string> | undefined) => boolean): number | undefined {
    if (!this.countsTerminating) return undefined;
    return ownedBy<Pod>(this.pods, set, false).filter((pod) => isPodTerminating(pod) && matches(pod.metadata.labels)).length;
  }

  /** RecheckDeletionTimestamp over a fresh read: only the live, same set adopts. */
  private async canAdopt(set: Replicated): Promise<void> {
    const fresh = await this.store.get(systemReadContext(set.metadata.namespace ?? ''), set.metadata.name!, { resourceVersion: '', match: '' });
    if (fresh.metadata.uid !== set.metadata.uid) {
      throw internalError(
        `original ${this.kind.kind} ${set.metadata.namespace}/${set.metadata.name} is gone: got uid ${fresh.metadata.uid}, wanted ${set.metadata.uid}`,
      );
    }
    if (fresh.metadata.deletionTimestamp) {
      throw internalError(`${set.metadata.namespace}/${set.metadata.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
  }

  /** manageReplicas: create or delete pods toward spec.replicas, at most a burst at a time. */
  private async manageReplicas(key: string, pods: Pod[], set: Replicated): Promise<void> {
    const namespace = set.metadata.namespace ?? '';
    const diff = pods.length - (set.spec?.replicas ?? 1);
    if (diff < 0) {
      const count = Math.min(-diff, BURST_REPLICAS);
      this.expectations.expectCreations(key, count);
      const ref = newControllerRef(set, this.kind.apiVersion, this.kind.kind);
      const { successes, error } = await slowStartBatch(count, async () => {
        try {
          await this.podControl.createPod(namespace, set.spec?.template ?? { metadata: {} }, set, ref);
        } catch (err) {
          // A namespace being deleted refuses every create: nothing to report.
          if (!namespaceTerminating(err)) throw err;
        }
      });
      // The creations never attempted (or failed) will never be observed.
      if (count - successes > 0) this.expectations.creationObserved(key, count - successes);
      if (error !== null) throw error;
    } else if (diff > 0) {
      const count = Math.min(diff, BURST_REPLICAS);
      const doomed = podsToDelete(pods, this.relatedPods(set), count, this.deps.clock.now());
      this.expectations.expectDeletions(key, doomed.length);
      const results = await Promise.allSettled(doomed.map((pod) => this.podControl.deletePod(namespace, pod.metadata.name!, set)));
      const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failures.length > 0) this.expectations.deletionObserved(key, failures.length);
      const error = failures.find((f) => !(isStatusError(f.reason) && f.reason.code === 404));
      if (error) throw error.reason;
    }
  }

  /**
   * getIndirectlyRelatedPods: the pods of every set sharing this one's controller (a Deployment's
   * ReplicaSets). A set without a controller has none, not even its own (kube's
   * getReplicaSetsWithSameController finds no set), so no pod of it ranks as doubled up on a node.
   */
  private relatedPods(set: Replicated): Pod[] {
    const parent = controllerRefOf(set);
    if (!parent) return [];
    const siblings = this.sets.byIndex(CONTROLLER_UID_INDEX, parent.uid).filter((s) => s.metadata.namespace === set.metadata.namespace);
    return siblings.flatMap((sibling) => ownedBy<Pod>(this.pods, sibling, false));
  }

  /** updateReplicaSetStatus: written when it changed or the generation is new; one retry over a fresh read. */
  private async writeStatus(set: Replicated, status: Replicated['status'] & object): Promise<Replicated> {
    const generation = set.metadata.generation ?? 0;
    if (jsonEqual(set.status ?? {}, status) && (set.status?.observedGeneration ?? 0) === generation) return set;
    const namespace = set.metadata.namespace ?? '';
    const ctx = withInfo(this.deps.own(namespace), { subresource: 'status' });
    let current: Replicated = set;
    for (let attempt = 0; ; attempt++) {
      try {
        const { object } = await this.store.update(
          ctx,
          set.metadata.name!,
          // The generation this sync acted on, even on the retry's fresh read (updateReplicaSetStatus).
          { ...current, status: { ...status, observedGeneration: generation } },
          { dryRun: false },
        );
        return object as Replicated;
      } catch (err) {
        if (attempt >= 1 || !isStatusError(err) || err.code !== 409) throw err;
        current = (await this.store.get(systemReadContext(namespace), set.metadata.name!, { resourceVersion: '', match: '' })) as Replicated;
      }
    }
  }
}
