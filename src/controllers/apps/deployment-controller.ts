import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { internalError, isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { Deployment, DeploymentStatus, ReplicaSet } from '../../generated/types/apps/v1';
import type { Pod } from '../../generated/types/core/v1';
import type { FeatureGates } from '../../server/feature-gates';
import { systemReadContext, withInfo } from '../../registry/request-context';
import { controllerRefOf, newControllerRef } from '../pods/controller-ref';
import { controllerUidIndexers, ownedBy } from '../pods/controller-uid-index';
import { messageOf } from '../pods/pod-control';
import { claimObjects } from '../pods/ref-manager';
import { selectorMatcher } from '../pods/selector';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { DelayedAdds } from './delayed-adds';
import { calculateStatus, rfc3339, rolloutStatus, stuckRecheckMs } from './deployment-status';
import {
  activeReplicaSets,
  availableReplicas,
  byCreation,
  condition,
  deploymentComplete,
  desiredReplicas,
  desiredReplicasAnnotation,
  equalIgnoreHash,
  findActiveOrLatest,
  findNewReplicaSet,
  hasProgressDeadline,
  isRollingUpdate,
  isSaturated,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newCondition,
  newReplicaSetReplicas,
  REASON,
  replicaSetProportion,
  REVISION_ANNOTATION,
  replicasAnnotationsNeedUpdate,
  revisionOf,
  rsReplicas,
  setCondition,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  specReplicas,
  terminatingReplicas,
} from './deployment-util';
import { computeHash, POD_TEMPLATE_HASH_LABEL } from './pod-template-hash';
import { jsonClone } from '../../api/json-clone';

const RETRY_MS = 1000;
const FRESH = { resourceVersion: '', match: '' as const };

/** A Deployment's ReplicaSets as one sync sees them: the one with its template, and the others. */
interface Sets {
  newRs: ReplicaSet | undefined;
  oldSets: ReplicaSet[];
}

const isEmptySelector = (d: Deployment): boolean => {
  const selector = d.spec?.selector;
  return !!selector && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
};

/**
 * kube's deployment controller (pkg/controller/deployment): a Deployment's ReplicaSets, one per
 * template (named `<deployment>-<pod-template-hash>`), scaled by its strategy (RollingUpdate
 * within maxSurge and maxUnavailable, or Recreate), proportionally when the Deployment is resized
 * mid-rollout; revisions in annotations (what `kubectl rollout history|undo` read), old
 * ReplicaSets beyond revisionHistoryLimit deleted, paused Deployments only scaled, and the status
 * with its Available and Progressing conditions (progressDeadlineSeconds).
 */
export class DeploymentController extends QueueController {
  readonly name = 'deployment-controller';
  protected readonly queue: WorkQueue;
  private readonly deployments: CachedInformer;
  private readonly sets: CachedInformer;
  private readonly pods: CachedInformer;
  private readonly store: ObjectStore;
  private readonly rsStore: ObjectStore;
  private readonly recorder: EventRecorder;
  private readonly delayed: DelayedAdds;

  /** Whether status.terminatingReplicas is written (the DeploymentReplicaSetTerminatingReplicas gate). */
  private readonly countsTerminating: boolean;

  constructor(
    private readonly deps: ControllerDeps,
    gates: Pick<FeatureGates, 'DeploymentReplicaSetTerminatingReplicas'>,
  ) {
    super();
    this.countsTerminating = gates.DeploymentReplicaSetTerminatingReplicas;
    this.store = deps.store('apps', 'v1', 'deployments');
    this.rsStore = deps.store('apps', 'v1', 'replicasets');
    this.recorder = deps.recorder('deployment-controller');
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.log(`deployment-controller: syncing ${key} failed`, err),
      RETRY_MS,
      deps.clock,
    );
    this.delayed = new DelayedAdds(this.queue, deps.clock);
    const enqueue = (d: KubeObject) => this.queue.add(objectKey(d));
    const opts = (name: string) => ({ name, log: deps.log, clock: deps.clock });
    this.deployments = deps.informers.informer(this.store, { added: enqueue, updated: (_, d) => enqueue(d), deleted: enqueue }, opts('deployments'));
    this.sets = deps.informers.informer(
      this.rsStore,
      {
        added: (rs) => this.replicaSetChanged(undefined, rs),
        updated: (old, rs) => this.replicaSetChanged(old, rs),
        deleted: (rs) => {
          const owner = this.ownerOf(rs);
          if (owner) enqueue(owner);
        },
      },
      opts('replicasets'),
    );
    this.pods = deps.informers.informer(
      deps.store('', 'v1', 'pods'),
      { deleted: (pod) => this.podDeleted(pod) },
      { ...opts('pods'), indexers: controllerUidIndexers },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.pods, this.sets, this.deployments];
  }

  override stop(): void {
    super.stop();
    this.delayed.stop();
  }

  private ownerOf(rs: KubeObject): Deployment | undefined {
    const ref = controllerRefOf(rs);
    if (!ref || ref.kind !== 'Deployment' || !ref.apiVersion.startsWith('apps/')) return undefined;
    const d = this.deployments.get(`${rs.metadata.namespace}/${ref.name}`);
    return d?.metadata.uid === ref.uid ? (d as Deployment) : undefined;
  }

  /** addReplicaSet / updateReplicaSet: its Deployment, or for an orphan every Deployment that may adopt it. */
  private replicaSetChanged(old: KubeObject | undefined, rs: KubeObject): void {
    if (old && old.metadata.resourceVersion === rs.metadata.resourceVersion) return;
    const refChanged = !!old && !jsonEqual(controllerRefOf(old) ?? null, controllerRefOf(rs) ?? null);
    const oldOwner = refChanged && this.ownerOf(old);
    if (oldOwner) this.queue.add(objectKey(oldOwner));
    if (controllerRefOf(rs)) {
      const owner = this.ownerOf(rs);
      if (owner) this.queue.add(objectKey(owner));
      return;
    }
    // An orphan: released (its controller reference gone) or relabelled, it may be adopted now.
    if (old && !refChanged && jsonEqual(old.metadata.labels ?? {}, rs.metadata.labels ?? {})) return;
    for (const d of this.deployments.list() as Deployment[]) {
      if (d.metadata.namespace === rs.metadata.namespace && !isEmptySelector(d) && selectorMatcher(d.spec?.selector)(rs.metadata.labels)) {
        this.queue.add(objectKey(d));
      }
    }
  }

  /** deletePod: a Recreate rollout waits for its old pods to go. */
  private podDeleted(pod: KubeObject): void {
    const ref = controllerRefOf(pod);
    if (!ref || ref.kind !== 'ReplicaSet') return;
    const rs = this.sets.get(`${pod.metadata.namespace}/${ref.name}`);
    const d = rs && this.ownerOf(rs);
    if (d && !isRollingUpdate(d)) this.queue.add(objectKey(d));
  }

  private async sync(key: string): Promise<boolean> {
    const cached = this.deployments.get(key) as Deployment | undefined;
    if (!cached) return true;
    const d = jsonClone(cached);
    if (isEmptySelector(d)) {
      this.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0))
        await this.writeStatus(d, { ...d.status, observedGeneration: d.metadata.generation });
      return true;
    }
    try {
      const sets = await this.claimReplicaSets(d);
      if (d.metadata.deletionTimestamp) return await this.syncStatusOnly(d, sets);
      await this.checkPausedConditions(d);
      if (d.spec?.paused) return await this.syncScale(d, sets);
      if (this.isScalingEvent(d, sets)) return await this.syncScale(d, sets);
      return isRollingUpdate(d) ? await this.rolloutRolling(d, sets) : await this.rolloutRecreate(d, sets);
    } catch (err) {
      // A write that lost a race: the newer object's watch event queues the Deployment again.
      if (isStatusError(err) && err.code === 409 && err.reason === 'Conflict') return true;
      throw err;
    }
  }

  /** getReplicaSetsForDeployment: the namespace's ReplicaSets it owns or adopts (selector match), releasing the rest. */
  private async claimReplicaSets(d: Deployment): Promise<ReplicaSet[]> {
    const matches = selectorMatcher(d.spec?.selector);
    const candidates = (this.sets.list() as ReplicaSet[]).filter((rs) => rs.metadata.namespace === d.metadata.namespace);
    return claimObjects<ReplicaSet>(
      d,
      newControllerRef(d, 'apps/v1', 'Deployment'),
      (rs) => matches(rs.metadata.labels),
      candidates,
      { store: this.rsStore, context: (ns) => this.deps.admitted(ns) },
      async () => {
        const fresh = await this.store.get(systemReadContext(d.metadata.namespace ?? ''), d.metadata.name!, FRESH);
        if (fresh.metadata.uid !== d.metadata.uid)
          throw internalError(
            `original Deployment ${d.metadata.namespace}/${d.metadata.name} is gone: got uid ${fresh.metadata.uid}, wanted ${d.metadata.uid}`,
          );
        if (fresh.metadata.deletionTimestamp)
          throw internalError(`${d.metadata.namespace}/${d.metadata.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
      },
    );
  }

  private now(): number {
    return this.deps.clock.now();
  }

  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked and missing) and the old ones. */
  private async replicaSets(d: Deployment, all: ReplicaSet[], create: boolean): Promise<Sets> {
    const found = findNewReplicaSet(d, all);
    const oldSets = all.filter((rs) => rs !== found);
    const newRevision = maxRevision(oldSets) + 1;
    if (found) return { newRs: await this.syncNewReplicaSet(d, found, newRevision), oldSets };
    return { newRs: create ? await this.createNewReplicaSet(d, oldSets, newRevision) : undefined, oldSets };
  }

  /** getNewReplicaSet for an existing one: its annotations and minReadySeconds, the Deployment's revision, FoundNewReplicaSet. */
  private async syncNewReplicaSet(d: Deployment, found: ReplicaSet, newRevision: number): Promise<ReplicaSet> {
    const copy = jsonClone(found);
    const annotationsChanged = setNewReplicaSetAnnotations(d, copy, newRevision, true);
    if (annotationsChanged || (copy.spec?.minReadySeconds ?? 0) !== (d.spec?.minReadySeconds ?? 0)) {
      copy.spec = { ...copy.spec, minReadySeconds: d.spec?.minReadySeconds ?? 0 };
      const { object } = await this.rsStore.update(this.deps.admitted(copy.metadata.namespace ?? ''), copy.metadata.name!, copy, { dryRun: false });
      return object as ReplicaSet;
    }
    let needsUpdate = setDeploymentRevision(d, copy.metadata.annotations?.[REVISION_ANNOTATION] ?? '');
    if (hasProgressDeadline(d) && !condition(d.status, 'Progressing')) {
      d.status ??= {};
      setCondition(
        d.status,
        newCondition('Progressing', 'True', REASON.foundNewReplicaSet, `Found new replica set "${copy.metadata.name}"`, rfc3339(this.now())),
      );
      needsUpdate = true;
    }
    if (needsUpdate) await this.writeStatus(d, d.status ?? {});
    return copy;
  }

  /** getNewReplicaSet's creation: `<deployment>-<hash>`, sized by the strategy; a name taken by another template bumps collisionCount. */
  private async createNewReplicaSet(d: Deployment, oldSets: ReplicaSet[], newRevision: number): Promise<ReplicaSet> {
    const namespace = d.metadata.namespace ?? '';
    const hash = computeHash(d.spec?.template, d.status?.collisionCount);
    const template = jsonClone(d.spec?.template ?? { metadata: {} });
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash } };
    const selector = jsonClone(d.spec?.selector ?? {});
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash };
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace,
        ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')],
        labels: template.metadata.labels,
      },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    const replicas = newReplicaSetReplicas(d, [...oldSets, rs], rs);
    rs.spec!.replicas = replicas;
    setNewReplicaSetAnnotations(d, rs, newRevision, false);
    let created: ReplicaSet;
    let alreadyExists = false;
    try {
      created = (await this.rsStore.create(this.deps.admitted(namespace), rs, { dryRun: false })) as ReplicaSet;
    } catch (err) {
      if (isStatusError(err) && err.code === 409 && err.reason === 'AlreadyExists') {
        const existing = (await this.rsStore.get(systemReadContext(namespace), rs.metadata.name!, FRESH)) as ReplicaSet;
        if (controllerRefOf(existing)?.uid !== d.metadata.uid || !equalIgnoreHash(existing.spec?.template, d.spec?.template)) {
          // A hash collision: another template has this name; the next hash includes the count.
          await this.writeStatus(d, { ...d.status, collisionCount: (d.status?.collisionCount ?? 0) + 1 });
          throw err;
        }
        created = existing;
        alreadyExists = true;
      } else {
        if (isStatusError(err) && (err.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating')) throw err;
        const message = `Failed to create new replica set "${rs.metadata.name}": ${messageOf(err)}`;
        if (hasProgressDeadline(d)) {
          d.status ??= {};
          setCondition(d.status, newCondition('Progressing', 'False', REASON.failedCreate, message, rfc3339(this.now())));
          await this.writeStatus(d, d.status).catch(() => undefined);
        }
        this.recorder.event(d, 'Warning', REASON.failedCreate, message);
        throw err;
      }
    }
    if (!alreadyExists && replicas > 0)
      this.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`);
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExists && hasProgressDeadline(d)) {
      d.status ??= {};
      setCondition(
        d.status,
        newCondition('Progressing', 'True', REASON.newReplicaSet, `Created new replica set "${created.metadata.name}"`, rfc3339(this.now())),
      );
      needsUpdate = true;
    }
    if (needsUpdate) await this.writeStatus(d, d.status ?? {});
    return created;
  }

  /** scaleReplicaSet: its size and replica annotations; an event when the size changed. */
  private async scaleReplicaSet(rs: ReplicaSet, newScale: number, d: Deployment): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    const sizeChanges = rsReplicas(rs) !== newScale;
    const max = desiredReplicas(d) + maxSurge(d);
    if (!sizeChanges && !replicasAnnotationsNeedUpdate(rs, desiredReplicas(d), max)) return { scaled: false, rs };
    const oldScale = rsReplicas(rs);
    const copy = jsonClone(rs);
    copy.spec = { ...copy.spec, replicas: newScale };
    setReplicasAnnotations(copy, desiredReplicas(d), max);
    const { object } = await this.rsStore.update(this.deps.admitted(copy.metadata.namespace ?? ''), copy.metadata.name!, copy, { dryRun: false });
    if (sizeChanges) {
      const direction = oldScale < newScale ? 'up' : 'down';
      this.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${direction} replica set ${rs.metadata.name} from ${oldScale} to ${newScale}`);
    }
    return { scaled: sizeChanges, rs: object as ReplicaSet };
  }

  /** scaleReplicaSetAndRecordEvent: nothing to do when the size is already right. */
  private async scaleAndRecord(rs: ReplicaSet, newScale: number, d: Deployment): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    if (rsReplicas(rs) === newScale) return { scaled: false, rs };
    return this.scaleReplicaSet(rs, newScale, d);
  }

  /** isScalingEvent: an active ReplicaSet was sized for another replica count than the Deployment's. */
  private isScalingEvent(d: Deployment, all: ReplicaSet[]): boolean {
    const found = findNewReplicaSet(d, all);
    return activeReplicaSets([...all.filter((rs) => rs !== found), found]).some((rs) => {
      const desired = desiredReplicasAnnotation(rs);
      return desired !== undefined && desired !== desiredReplicas(d);
    });
  }

  private async syncStatusOnly(d: Deployment, all: ReplicaSet[]): Promise<boolean> {
    const { newRs, oldSets } = await this.replicaSets(d, all, false);
    await this.syncDeploymentStatus(d, [...oldSets, newRs], newRs);
    return true;
  }

  /** checkPausedConditions: Progressing Unknown with DeploymentPaused / DeploymentResumed, so a pause never counts against the deadline. */
  private async checkPausedConditions(d: Deployment): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const current = condition(d.status, 'Progressing');
    if (current?.reason === REASON.timedOut) return;
    const pausedCondition = current?.reason === REASON.paused;
    const stamp = rfc3339(this.now());
    d.status ??= {};
    if (d.spec?.paused && !pausedCondition) {
      setCondition(d.status, newCondition('Progressing', 'Unknown', REASON.paused, 'Deployment is paused', stamp));
    } else if (!d.spec?.paused && pausedCondition) {
      setCondition(d.status, newCondition('Progressing', 'Unknown', REASON.resumed, 'Deployment is resumed', stamp));
    } else {
      return;
    }
    await this.writeStatus(d, d.status);
  }

  /** sync: scaling (proportional during a rollout) and, while paused, history cleanup; no rollout. */
  private async syncScale(d: Deployment, all: ReplicaSet[]): Promise<boolean> {
    const { newRs, oldSets } = await this.replicaSets(d, all, false);
    await this.scale(d, newRs, oldSets);
    if (d.spec?.paused) await this.cleanup(d, oldSets);
    await this.syncDeploymentStatus(d, [...oldSets, newRs], newRs);
    return true;
  }

  /** scale: the one active ReplicaSet takes the whole size; else extra (or fewer) replicas are shared in proportion. */
  private async scale(d: Deployment, newRs: ReplicaSet | undefined, oldSets: ReplicaSet[]): Promise<void> {
    const activeOrLatest = findActiveOrLatest(newRs, oldSets);
    if (activeOrLatest) {
      if (rsReplicas(activeOrLatest) !== desiredReplicas(d)) await this.scaleAndRecord(activeOrLatest, desiredReplicas(d), d);
      return;
    }
    if (isSaturated(d, newRs)) {
      for (const old of activeReplicaSets(oldSets)) await this.scaleAndRecord(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const active = activeReplicaSets([...oldSets, newRs]);
    const allowed = desiredReplicas(d) > 0 ? desiredReplicas(d) + maxSurge(d) : 0;
    const toAdd = allowed - specReplicas(active);
    // Larger first; among equals, newer first when growing and older first when shrinking.
    if (toAdd > 0) active.sort((a, b) => rsReplicas(b) - rsReplicas(a) || byCreation(b, a));
    else if (toAdd < 0) active.sort((a, b) => rsReplicas(b) - rsReplicas(a) || byCreation(a, b));
    let added = 0;
    const sizes = active.map((rs) => {
      if (toAdd === 0) return rsReplicas(rs);
      const proportion = replicaSetProportion(rs, d, toAdd, added);
      added += proportion;
      return rsReplicas(rs) + proportion;
    });
    // The leftover of the rounding goes to the largest.
    if (toAdd !== 0 && active.length > 0) sizes[0] = Math.max(0, sizes[0] + toAdd - added);
    for (let i = 0; i < active.length; i++) await this.scaleReplicaSet(active[i], sizes[i], d);
  }

  /** cleanupDeployment: old, empty ReplicaSets beyond revisionHistoryLimit, lowest revision first. */
  private async cleanup(d: Deployment, oldSets: ReplicaSet[]): Promise<void> {
    const limit = d.spec?.revisionHistoryLimit;
    if (limit === undefined) return;
    const cleanable = oldSets.filter((rs) => !rs.metadata.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of cleanable.slice(0, diff)) {
      if ((rs.status?.replicas ?? 0) !== 0 || rsReplicas(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await this.rsStore.delete(this.deps.admitted(rs.metadata.namespace ?? ''), rs.metadata.name!, { dryRun: false });
      } catch (err) {
        if (!isStatusError(err) || err.code !== 404) throw err;
      }
    }
  }

  /** rolloutRolling: grow the new ReplicaSet within maxSurge, else shrink old ones within maxUnavailable. */
  private async rolloutRolling(d: Deployment, all: ReplicaSet[]): Promise<boolean> {
    const { newRs, oldSets } = await this.replicaSets(d, all, true);
    const allSets = [...oldSets, newRs!];
    if (await this.reconcileNewReplicaSet(d, allSets, newRs!)) return this.syncRolloutStatus(d, allSets, newRs);
    if (await this.reconcileOldReplicaSets(d, activeReplicaSets(oldSets), newRs!)) return this.syncRolloutStatus(d, allSets, newRs);
    if (deploymentComplete(d, d.status ?? {})) await this.cleanup(d, oldSets);
    return this.syncRolloutStatus(d, allSets, newRs);
  }

  private async reconcileNewReplicaSet(d: Deployment, all: ReplicaSet[], newRs: ReplicaSet): Promise<boolean> {
    const desired = desiredReplicas(d);
    if (rsReplicas(newRs) === desired) return false;
    if (rsReplicas(newRs) > desired) return (await this.scaleAndRecord(newRs, desired, d)).scaled;
    return (await this.scaleAndRecord(newRs, newReplicaSetReplicas(d, all, newRs), d)).scaled;
  }

  /**
   * reconcileOldReplicaSets: unhealthy old replicas go first, then old ones while enough stay
   * available. A scale-down that fails (refused, or an invalid request) scales nothing more and is
   * swallowed, as kube's is: the rollout status is still synced.
   */
  private async reconcileOldReplicaSets(d: Deployment, oldSets: ReplicaSet[], newRs: ReplicaSet): Promise<boolean> {
    if (specReplicas(oldSets) === 0) return false;
    const allPods = specReplicas([...oldSets, newRs]);
    const minAvailable = desiredReplicas(d) - maxUnavailable(d);
    const newUnavailable = rsReplicas(newRs) - (newRs.status?.availableReplicas ?? 0);
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    try {
      const { sets, scaledDown: cleaned } = await this.cleanupUnhealthyReplicas(d, oldSets, maxScaledDown);
      const scaledDown = await this.scaleDownOldForRollingUpdate(d, [...sets, newRs], sets);
      return cleaned + scaledDown > 0;
    } catch {
      return false;
    }
  }

  /**
   * cleanupUnhealthyReplicas. An old ReplicaSet reporting more available pods than it asks for (a
   * status not yet caught up with a scale-down) is kube's invalid request to scale down: "cleaning"
   * it would scale it back up.
   */
  private async cleanupUnhealthyReplicas(d: Deployment, oldSets: ReplicaSet[], maxCleanup: number): Promise<{ sets: ReplicaSet[]; scaledDown: number }> {
    const sets = [...oldSets].sort(byCreation);
    let total = 0;
    for (let i = 0; i < sets.length && total < maxCleanup; i++) {
      const rs = sets[i];
      const unhealthy = rsReplicas(rs) - (rs.status?.availableReplicas ?? 0);
      if (rsReplicas(rs) === 0 || unhealthy === 0) continue;
      const count = Math.min(maxCleanup - total, unhealthy);
      if (count < 0) {
        const name = `${rs.metadata.namespace}/${rs.metadata.name}`;
        throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${name} ${rsReplicas(rs)} -> ${rsReplicas(rs) - count}`);
      }
      sets[i] = (await this.scaleAndRecord(rs, rsReplicas(rs) - count, d)).rs;
      total += count;
    }
    return { sets, scaledDown: total };
  }

  private async scaleDownOldForRollingUpdate(d: Deployment, all: ReplicaSet[], oldSets: ReplicaSet[]): Promise<number> {
    const minAvailable = desiredReplicas(d) - maxUnavailable(d);
    const available = availableReplicas(all);
    if (available <= minAvailable) return 0;
    const toScaleDown = available - minAvailable;
    let total = 0;
    for (const rs of [...oldSets].sort(byCreation)) {
      if (total >= toScaleDown) break;
      if (rsReplicas(rs) === 0) continue;
      const count = Math.min(rsReplicas(rs), toScaleDown - total);
      await this.scaleAndRecord(rs, rsReplicas(rs) - count, d);
      total += count;
    }
    return total;
  }

  /** rolloutRecreate: every old pod gone before the new ReplicaSet is created or grown. */
  private async rolloutRecreate(d: Deployment, all: ReplicaSet[]): Promise<boolean> {
    let { newRs, oldSets } = await this.replicaSets(d, all, false);
    let allSets: (ReplicaSet | undefined)[] = [...oldSets, newRs];
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldSets)) if ((await this.scaleAndRecord(rs, 0, d)).scaled) scaledDown = true;
    if (scaledDown || this.oldPodsRunning(oldSets)) return this.syncRolloutStatus(d, allSets, newRs);
    if (!newRs) {
      ({ newRs, oldSets } = await this.replicaSets(d, all, true));
      allSets = [...oldSets, newRs];
    }
    await this.scaleAndRecord(newRs!, desiredReplicas(d), d);
    if (deploymentComplete(d, d.status ?? {})) await this.cleanup(d, oldSets);
    return this.syncRolloutStatus(d, allSets, newRs);
  }

  /** oldPodsRunning: old ReplicaSets still report pods, or pods of theirs not yet finished. */
  private oldPodsRunning(oldSets: ReplicaSet[]): boolean {
    if (oldSets.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    return oldSets.some((rs) => ownedBy<Pod>(this.pods, rs, false).some((pod) => pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded'));
  }

  private terminating(all: (ReplicaSet | undefined)[]): number | undefined {
    return this.countsTerminating ? terminatingReplicas(all) : undefined;
  }

  /** syncDeploymentStatus: the counts and Available, written when they changed. */
  private async syncDeploymentStatus(d: Deployment, all: (ReplicaSet | undefined)[], newRs: ReplicaSet | undefined): Promise<void> {
    const status = calculateStatus(all, newRs, d, this.now(), this.terminating(all));
    if (!jsonEqual(d.status ?? {}, status)) await this.writeStatus(d, status);
  }

  /** syncRolloutStatus: with the Progressing condition; a rollout that may stall is looked at again by its deadline. */
  private async syncRolloutStatus(d: Deployment, all: (ReplicaSet | undefined)[], newRs: ReplicaSet | undefined): Promise<boolean> {
    const now = this.now();
    const status = rolloutStatus(all, newRs, d, now, this.terminating(all));
    if (jsonEqual(d.status ?? {}, status)) {
      const after = stuckRecheckMs(d, status, now);
      if (after !== null) this.delayed.addAfter(objectKey(d), after);
      return true;
    }
    await this.writeStatus(d, status);
    return true;
  }

  /** UpdateStatus, carrying the revision annotation as kube's status strategy lets it; `d` becomes what was written. */
  private async writeStatus(d: Deployment, status: DeploymentStatus): Promise<void> {
    const ctx = withInfo(this.deps.own(d.metadata.namespace ?? ''), { subresource: 'status' });
    const { object } = await this.store.update(ctx, d.metadata.name!, { ...d, status }, { dryRun: false });
    Object.assign(d, object);
  }
}
