import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { OwnerReference } from '../../api/types';
import type { ControllerRevision, StatefulSet, StatefulSetStatus } from '../../generated/types/apps/v1';
import type { PersistentVolumeClaim, Pod } from '../../generated/types/core/v1';
import type { FeatureGates } from '../../server/feature-gates';
import { newControllerRef } from '../pods/controller-ref';
import { messageOf } from '../pods/pod-control';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import {
  computeHash,
  createRevision,
  equalRevision,
  nextRevision,
  podRevisionsInUse,
  renumberRevision,
  REVISION_HASH_LABEL,
  templateOf,
  templatePatch,
  truncateHistory,
  type HistoryWriter,
} from './controller-history';
import {
  claimsFor,
  identityMatches,
  isCreated,
  isRunningAndAvailable,
  isRunningAndReady,
  isTerminating,
  isUnavailable,
  newStatefulSetPod,
  ordinalOf,
  podInOrdinalRange,
  podRevision,
  replicasOf,
  startOrdinal,
  storageMatches,
  updateIdentity,
  updateStorage,
} from './statefulset-pods';
import { systemReadContext } from '../../registry/request-context';
import { jsonClone } from '../../api/json-clone';

const NOT_DRY_RUN = { dryRun: false } as const;
/** The pod to update was replaced meanwhile: the next pass sees the new one. */
const REPLACED = Symbol('replaced');

/** newRevision: the set's template as a revision, named and labelled by the hash of its data. */
function newRevision(set: StatefulSet, number: number, collisionCount: number): ControllerRevision {
  const data = templatePatch(set.spec?.template);
  const hash = computeHash(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${set.metadata.name}-${hash}`,
      namespace: set.metadata.namespace,
      labels: { ...set.spec?.template?.metadata?.labels, [REVISION_HASH_LABEL]: hash },
      ...(set.metadata.annotations ? { annotations: { ...set.metadata.annotations } } : {}),
      ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
    },
    data,
    revision: number,
  };
}

/**
 * What one pass over a set decided: its status, when to look again though nothing changes
 * (minReadySeconds), and the error that cut the pass short, if one did: as kube's performUpdate,
 * the status is written even then, and the set retried.
 */
export interface StatefulSetOutcome {
  status: StatefulSetStatus;
  recheckAfterMs: number | null;
  error?: unknown;
}

interface PassResult {
  status: StatefulSetStatus;
  error?: unknown;
}

/** A pass stops here: an ordered set waits for a pod, or a rolling update did its one step. */
const BLOCKED = true;

/**
 * defaultStatefulSetControl (pkg/controller/statefulset/stateful_set_control.go): one pass over a
 * set with its pods and revisions: the current and update revisions, pods created, fixed and
 * deleted toward the spec (in ordinal order and one at a time for OrderedReady, all at once for
 * Parallel), then the rolling update, the status, and the history trimmed.
 */
export class StatefulSetControl {
  private readonly pods: ObjectStore;
  private readonly claims: ObjectStore;
  private readonly history: HistoryWriter;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly recorder: EventRecorder,
    private readonly gates: Pick<FeatureGates, 'MaxUnavailableStatefulSet'>,
  ) {
    this.pods = deps.store('', 'v1', 'pods');
    this.claims = deps.store('', 'v1', 'persistentvolumeclaims');
    this.history = { revisions: deps.store('apps', 'v1', 'controllerrevisions'), context: (ns) => deps.admitted(ns) };
  }

  async sync(set: StatefulSet, pods: Pod[], revisions: ControllerRevision[]): Promise<StatefulSetOutcome> {
    const { current, update, collisionCount } = await this.revisions(set, revisions);
    const { status, error } = await this.updateSet(set, current, update, collisionCount, pods);
    completeRollingUpdate(set, status);
    const live = podRevisionsInUse(pods);
    live.add(current.metadata.name!).add(update.metadata.name!);
    await truncateHistory(this.history, revisions, live, set.spec?.revisionHistoryLimit ?? 10);
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    if (error !== undefined) return { status, recheckAfterMs: null, error };
    const recheckAfterMs = minReadySeconds > 0 && status.readyReplicas !== status.availableReplicas ? minReadySeconds * 1000 : null;
    return { status, recheckAfterMs };
  }

  /** getStatefulSetRevisions: an unchanged template keeps the newest revision; an older equal one is renumbered (a rollback); else a new one. */
  private async revisions(
    set: StatefulSet,
    revisions: ControllerRevision[],
  ): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    let collisionCount = set.status?.collisionCount ?? 0;
    const number = nextRevision(revisions);
    const candidate = newRevision(set, number, collisionCount);
    const equal = revisions.filter((r) => equalRevision(r, candidate));
    let update: ControllerRevision;
    if (equal.length > 0 && equal.at(-1) === revisions.at(-1)) update = revisions.at(-1)!;
    else if (equal.length > 0) update = await renumberRevision(this.history, equal.at(-1)!, number);
    else ({ revision: update, collisionCount } = await createRevision(this.history, (count) => newRevision(set, number, count), collisionCount));
    const current = revisions.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  /** updateStatefulSet: a failed step ends the pass with the status counted so far. */
  private async updateSet(set: StatefulSet, current: ControllerRevision, update: ControllerRevision, collisionCount: number, pods: Pod[]): Promise<PassResult> {
    const now = (): number => this.deps.clock.now();
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    const status: StatefulSetStatus = {
      observedGeneration: set.metadata.generation,
      currentRevision: current.metadata.name,
      updateRevision: update.metadata.name,
      collisionCount,
    };
    const start = startOrdinal(set);
    const replicas: Pod[] = new Array<Pod>(replicasOf(set));
    const condemned: Pod[] = [];
    for (const pod of pods) {
      if (podInOrdinalRange(set, pod)) replicas[ordinalOf(pod) - start] = pod;
      else if (ordinalOf(pod) >= 0) condemned.push(pod);
    }
    for (let i = 0; i < replicas.length; i++) replicas[i] ??= this.newVersionedPod(set, current, update, start + i);
    condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
    const counted = (): StatefulSetStatus => ({ ...status, ...countReplicas([...replicas, ...condemned], minReadySeconds, now(), current, update) });
    Object.assign(status, counted());
    const firstUnavailable =
      replicas.find((p) => isUnavailable(p, minReadySeconds, now())) ?? [...condemned].reverse().find((p) => isUnavailable(p, minReadySeconds, now()));
    if (set.metadata.deletionTimestamp) return { status };

    const monotonic = set.spec?.podManagementPolicy !== 'Parallel';
    const updateTemplate = templateOf(update);
    const updateSet: StatefulSet = { ...set, spec: { ...set.spec, template: updateTemplate } };
    try {
      if (await runForAll(replicas, (_, i) => this.processReplica(set, updateSet, monotonic, replicas, i, now()), monotonic)) return { status: counted() };
      if (await runForAll(condemned, (pod) => this.fixClaimOwners(updateSet, pod), monotonic)) return { status: counted() };
      if (await runForAll(condemned, (pod) => this.processCondemned(set, firstUnavailable, monotonic, pod, now()), monotonic)) return { status: counted() };
    } catch (error) {
      return { status: counted(), error };
    }
    Object.assign(status, counted());
    if (set.spec?.updateStrategy?.type === 'OnDelete') return { status };
    try {
      await this.rollingUpdate(set, replicas, current, update, status, now());
      return { status };
    } catch (error) {
      return { status, error };
    }
  }

  /** The rolling update's deletions; each lowers status.currentReplicas as it goes. */
  private async rollingUpdate(
    set: StatefulSet,
    replicas: Pod[],
    current: ControllerRevision,
    update: ControllerRevision,
    status: StatefulSetStatus,
    nowMs: number,
  ): Promise<void> {
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    if (this.gates.MaxUnavailableStatefulSet) return this.rollWithinMaxUnavailable(set, replicas, current, update, status, nowMs);

    // Without MaxUnavailableStatefulSet: one pod at a time, from the highest ordinal down to the partition.
    const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let target = replicas.length - 1; target >= partition; target--) {
      const pod = replicas[target]!;
      if (podRevision(pod) !== update.metadata.name && !isTerminating(pod)) {
        await this.deletePod(set, pod);
        // A pod of a third revision (a rollout on top of a rollout) was never counted as current.
        if (podRevision(pod) === current.metadata.name) status.currentReplicas = (status.currentReplicas ?? 0) - 1;
        return;
      }
      if (isUnavailable(pod, minReadySeconds, nowMs)) return;
    }
  }

  /**
   * updateStatefulSetAfterInvariantEstablished (MaxUnavailableStatefulSet): while fewer than
   * maxUnavailable of the set's pods are unavailable, as many more as the difference are deleted
   * for the update, from the highest ordinal down to the partition.
   */
  private async rollWithinMaxUnavailable(
    set: StatefulSet,
    replicas: Pod[],
    current: ControllerRevision,
    update: ControllerRevision,
    status: StatefulSetStatus,
    nowMs: number,
  ): Promise<void> {
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    const rolling = set.spec?.updateStrategy?.rollingUpdate;
    const budget = maxUnavailable(rolling?.maxUnavailable, replicas.length) - replicas.filter((pod) => isUnavailable(pod, minReadySeconds, nowMs)).length;
    let deleted = 0;
    for (let target = replicas.length - 1; target >= (rolling?.partition ?? 0) && deleted < budget; target--) {
      const pod = replicas[target]!;
      if (podRevision(pod) === update.metadata.name || isTerminating(pod)) continue;
      await this.deletePod(set, pod);
      deleted++;
      if (podRevision(pod) === current.metadata.name) status.currentReplicas = (status.currentReplicas ?? 0) - 1;
    }
  }

  /** newVersionedStatefulSetPod: below the partition (or the current count without one), a pod of the current revision. */
  private newVersionedPod(set: StatefulSet, current: ControllerRevision, update: ControllerRevision, ordinal: number): Pod {
    const rolling = set.spec?.updateStrategy?.type === 'RollingUpdate';
    const partition = set.spec?.updateStrategy?.rollingUpdate?.partition;
    const belowCurrent = partition === undefined ? ordinal < startOrdinal(set) + (set.status?.currentReplicas ?? 0) : ordinal < startOrdinal(set) + partition;
    const revision = rolling && belowCurrent ? current : update;
    return newStatefulSetPod(set, templateOf(revision), ordinal, revision.metadata.name!);
  }

  /** processReplica: true when the pass must stop here. */
  private async processReplica(set: StatefulSet, updateSet: StatefulSet, monotonic: boolean, replicas: Pod[], i: number, nowMs: number): Promise<boolean> {
    const pod = replicas[i]!;
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    // A finished pod (evicted, or its node rebooted) is replaced whatever its exit code; the replacement comes once it is gone.
    if (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') {
      if (!pod.metadata.deletionTimestamp) await this.deletePod(set, pod);
      return BLOCKED;
    }
    if (!isCreated(pod)) {
      if (await this.claimIsStale(set, pod)) return BLOCKED;
      replicas[i] = await this.createPod(set, pod);
      if (monotonic) return BLOCKED;
    }
    const live = replicas[i]!;
    if (live.status?.phase === 'Pending') await this.createClaims(set, live);
    if (monotonic && (isTerminating(live) || !isRunningAndReady(live) || !isRunningAndAvailable(live, minReadySeconds, nowMs))) return BLOCKED;
    if (identityMatches(set, live) && storageMatches(set, live) && (await this.claimsMatchPolicy(updateSet, live))) return false;
    await this.updatePod(updateSet, live);
    return false;
  }

  /** processCondemned: an ordered set deletes the highest ordinal first, and only once every pod but the first unhealthy one is healthy. */
  private async processCondemned(set: StatefulSet, firstUnavailable: Pod | undefined, monotonic: boolean, pod: Pod, nowMs: number): Promise<boolean> {
    if (isTerminating(pod)) return monotonic;
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    if (monotonic && pod !== firstUnavailable && !isRunningAndAvailable(pod, minReadySeconds, nowMs)) return BLOCKED;
    await this.deletePod(set, pod);
    return BLOCKED;
  }

  private event(set: StatefulSet, verb: 'create' | 'update' | 'delete', what: string, err: unknown): void {
    const title = verb[0]!.toUpperCase() + verb.slice(1);
    if (err === null) this.recorder.event(set, 'Normal', `Successful${title}`, `${verb} ${what} in StatefulSet ${set.metadata.name} successful`);
    else this.recorder.event(set, 'Warning', `Failed${title}`, `${verb} ${what} in StatefulSet ${set.metadata.name} failed error: ${messageOf(err)}`);
  }

  private claimEvent(set: StatefulSet, verb: 'create' | 'update', claim: PersistentVolumeClaim, pod: Pod, err: unknown): void {
    const title = verb[0]!.toUpperCase() + verb.slice(1);
    const what = `Claim ${claim.metadata.name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name}`;
    if (err === null) this.recorder.event(set, 'Normal', `Successful${title}`, `${verb} ${what} success`);
    else this.recorder.event(set, 'Warning', `Failed${title}`, `${verb} ${what} failed error: ${messageOf(err)}`);
  }

  /**
   * CreateStatefulPod: the claims first, then the pod. A name already taken (by a pod the cache has
   * not shown yet, or by one the set does not select) fails the pass without an event, as kube's.
   * The store fills in what it creates, so it gets a copy: the pod built here must stay uncreated.
   */
  private async createPod(set: StatefulSet, pod: Pod): Promise<Pod> {
    await this.createClaims(set, pod);
    try {
      const created = (await this.pods.create(this.deps.admitted(set.metadata.namespace!), jsonClone(pod), NOT_DRY_RUN)) as Pod;
      this.event(set, 'create', `Pod ${pod.metadata.name}`, null);
      return created;
    } catch (err) {
      if (isStatusError(err) && err.code === 409) throw err;
      this.event(set, 'create', `Pod ${pod.metadata.name}`, err);
      throw err;
    }
  }

  private async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.pods.delete(this.deps.admitted(set.metadata.namespace!), pod.metadata.name!, NOT_DRY_RUN);
      this.event(set, 'delete', `Pod ${pod.metadata.name}`, null);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return;
      this.event(set, 'delete', `Pod ${pod.metadata.name}`, err);
      throw err;
    }
  }

  /** UpdateStatefulPod: identity and storage put right (the claims created first), owner references of its claims as the policy says. */
  private async updatePod(set: StatefulSet, pod: Pod): Promise<void> {
    const { uid, name } = pod.metadata;
    try {
      await this.createClaims(set, pod);
      await this.pods.update(
        this.deps.admitted(set.metadata.namespace!),
        name!,
        (current) => {
          if (current.metadata.uid !== uid) throw REPLACED;
          const next = jsonClone(current) as Pod;
          if (!identityMatches(set, next)) updateIdentity(set, next);
          if (!storageMatches(set, next)) updateStorage(set, next);
          return next;
        },
        NOT_DRY_RUN,
      );
      await this.fixClaimOwners(set, pod);
      this.event(set, 'update', `Pod ${name}`, null);
    } catch (err) {
      if (err === REPLACED) return;
      this.event(set, 'update', `Pod ${name}`, err);
      throw err;
    }
  }

  /** createPersistentVolumeClaims: each missing claim created; one being deleted holds the pod back. */
  private async createClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const namespace = set.metadata.namespace!;
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const existing = (await this.claims.find(systemReadContext(namespace), claim.metadata.name!, {
        resourceVersion: '',
        match: '',
      })) as PersistentVolumeClaim | null;
      if (existing) {
        if (existing.metadata.deletionTimestamp) throw new Error(`pvc ${claim.metadata.name} is being deleted`);
        continue;
      }
      const owner = claimOwner(set, pod);
      if (owner) claim.metadata.ownerReferences = [owner];
      try {
        await this.claims.create(this.deps.admitted(namespace), claim, NOT_DRY_RUN);
        this.claimEvent(set, 'create', claim, pod, null);
      } catch (err) {
        if (isStatusError(err) && err.code === 409) continue;
        this.claimEvent(set, 'create', claim, pod, err);
        throw err;
      }
    }
  }

  /** PodClaimIsStale: a claim still owned by an earlier pod of the same name waits for the garbage collector. */
  private async claimIsStale(set: StatefulSet, pod: Pod): Promise<boolean> {
    if (set.spec?.persistentVolumeClaimRetentionPolicy?.whenScaled !== 'Delete') return false;
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const existing = await this.claims.find(systemReadContext(set.metadata.namespace!), claim.metadata.name!, { resourceVersion: '', match: '' });
      if (existing?.metadata.ownerReferences?.some((ref) => ref.kind === 'Pod' && ref.apiVersion === 'v1' && ref.uid !== pod.metadata.uid)) return true;
    }
    return false;
  }

  /** ClaimsMatchRetentionPolicy. */
  private async claimsMatchPolicy(set: StatefulSet, pod: Pod): Promise<boolean> {
    const want = claimOwner(set, pod);
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const existing = await this.claims.find(systemReadContext(set.metadata.namespace!), claim.metadata.name!, { resourceVersion: '', match: '' });
      if (existing && !jsonEqual(ourRefs(existing.metadata.ownerReferences, set, pod), want ? [want] : [])) return false;
    }
    return true;
  }

  /** UpdatePodClaimForRetentionPolicy: the claims' references to the set and the pod become what the policy asks (a scaled-down pod's claims go with it under whenScaled: Delete). */
  private async fixClaimOwners(set: StatefulSet, pod: Pod): Promise<boolean> {
    const want = claimOwner(set, pod);
    const namespace = set.metadata.namespace!;
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const existing = await this.claims.find(systemReadContext(namespace), claim.metadata.name!, { resourceVersion: '', match: '' });
      if (!existing || jsonEqual(ourRefs(existing.metadata.ownerReferences, set, pod), want ? [want] : [])) continue;
      await this.claims.update(
        this.deps.admitted(namespace),
        claim.metadata.name!,
        (current) => {
          const others = (current.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== set.metadata.uid && ref.uid !== pod.metadata.uid);
          const refs = want ? [...others, want] : others;
          if (refs.length > 0) current.metadata.ownerReferences = refs;
          else delete current.metadata.ownerReferences;
          return current;
        },
        NOT_DRY_RUN,
      );
      this.claimEvent(set, 'update', existing as PersistentVolumeClaim, pod, null);
    }
    return false;
  }
}

/** getStatefulSetMaxUnavailable: 1 by default, a percentage of the replicas rounded down, never below 1. */
function maxUnavailable(value: number | string | undefined, replicas: number): number {
  const scaled = typeof value === 'string' ? Math.floor((Number(value.replace(/%$/, '')) * replicas) / 100) : (value ?? 1);
  return Math.max(1, scaled);
}

/** The references a claim has to the set or the pod. */
const ourRefs = (refs: OwnerReference[] | undefined, set: StatefulSet, pod: Pod): OwnerReference[] =>
  (refs ?? []).filter((ref) => ref.uid === set.metadata.uid || (pod.metadata.uid && ref.uid === pod.metadata.uid));

/**
 * updateClaimOwnerRefForSetAndPod: whenScaled Delete gives a scaled-down pod's claims to the pod;
 * whenDeleted Delete gives the others to the set; Retain leaves them to nobody.
 */
function claimOwner(set: StatefulSet, pod: Pod): OwnerReference | null {
  const policy = set.spec?.persistentVolumeClaimRetentionPolicy;
  if (policy?.whenScaled === 'Delete' && !podInOrdinalRange(set, pod) && pod.metadata.uid) return newControllerRef(pod, 'v1', 'Pod');
  if (policy?.whenDeleted === 'Delete') return newControllerRef(set, 'apps/v1', 'StatefulSet');
  return null;
}

/** computeReplicaStatus over every pod of the set. */
function countReplicas(
  pods: Pod[],
  minReadySeconds: number,
  nowMs: number,
  current: ControllerRevision,
  update: ControllerRevision,
): Required<Pick<StatefulSetStatus, 'replicas' | 'readyReplicas' | 'availableReplicas' | 'currentReplicas' | 'updatedReplicas'>> {
  const counts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  for (const pod of pods) {
    if (isCreated(pod)) counts.replicas++;
    if (isRunningAndReady(pod)) {
      counts.readyReplicas++;
      if (isRunningAndAvailable(pod, minReadySeconds, nowMs)) counts.availableReplicas++;
    }
    if (isCreated(pod) && !isTerminating(pod)) {
      if (podRevision(pod) === current.metadata.name) counts.currentReplicas++;
      if (podRevision(pod) === update.metadata.name) counts.updatedReplicas++;
    }
  }
  return counts;
}

/**
 * completeRollingUpdate: the update revision becomes the current one once the spec's count of pods
 * exist, updated and ready, as kube's; a set short of a pod keeps its current revision however many
 * of the pods it has are updated.
 */
function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): void {
  const want = replicasOf(set);
  if (set.spec?.updateStrategy?.type === 'RollingUpdate' && status.updatedReplicas === want && status.readyReplicas === want && status.replicas === want) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

/**
 * runForAll: an ordered set goes pod by pod and stops at the first that blocks; a parallel one
 * handles them all in slow-start batches (1, 2, 4, ...), stopping only on an error.
 */
async function runForAll(pods: Pod[], fn: (pod: Pod, i: number) => Promise<boolean>, monotonic: boolean): Promise<boolean> {
  if (monotonic) {
    for (let i = 0; i < pods.length; i++) if (await fn(pods[i]!, i)) return true;
    return false;
  }
  for (let done = 0, batch = 1; done < pods.length; done += batch, batch *= 2) {
    const indexes = Array.from({ length: Math.min(batch, pods.length - done) }, (_, k) => done + k);
    const results = await Promise.allSettled(indexes.map((i) => fn(pods[i]!, i)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
  return false;
}
