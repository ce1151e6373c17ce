import { jsonEqual } from '../../api/deep-equal';
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from '../../generated/types/apps/v1';
import type { PodTemplateSpec } from '../../generated/types/core/v1';
import { POD_TEMPLATE_HASH_LABEL } from './pod-template-hash';
import { jsonClone } from '../../api/json-clone';

/** pkg/controller/deployment/util's annotations. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';
/** A Deployment's annotations that are not copied to its ReplicaSets. */
const ANNOTATIONS_TO_SKIP = new Set([
  LAST_APPLIED_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
]);
/** The longest revision-history annotation kept (maxRevHistoryLengthInChars). */
const MAX_REVISION_HISTORY_CHARS = 2000;

/** Condition reasons and messages, as deploymentutil's constants. */
export const REASON = {
  newReplicaSet: 'NewReplicaSetCreated',
  foundNewReplicaSet: 'FoundNewReplicaSet',
  replicaSetUpdated: 'ReplicaSetUpdated',
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  failedCreate: 'ReplicaSetCreateError',
  minimumAvailable: 'MinimumReplicasAvailable',
  minimumUnavailable: 'MinimumReplicasUnavailable',
} as const;

export const desiredReplicas = (d: Deployment): number => d.spec?.replicas ?? 1;
export const rsReplicas = (rs: ReplicaSet): number => rs.spec?.replicas ?? 1;
const MAX_INT32 = 2147483647;

export function hasProgressDeadline(d: Deployment): boolean {
  const seconds = d.spec?.progressDeadlineSeconds;
  return seconds !== undefined && seconds !== MAX_INT32;
}

export const isRollingUpdate = (d: Deployment): boolean => (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const percent = Number(value.replace(/%$/, ''));
  const exact = (percent * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** ResolveFenceposts: surge rounds up, unavailability down, and both zero means one may be unavailable. */
function fenceposts(d: Deployment): { surge: number; unavailable: number } {
  const rolling = d.spec?.strategy?.rollingUpdate;
  const desired = desiredReplicas(d);
  const surge = scaledValue(rolling?.maxSurge ?? 0, desired, true);
  const unavailable = scaledValue(rolling?.maxUnavailable ?? 0, desired, false);
  return { surge, unavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
}

export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? fenceposts(d).surge : 0;
}

export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || desiredReplicas(d) === 0) return 0;
  return Math.min(fenceposts(d).unavailable, desiredReplicas(d));
}

/** A revision as strconv.ParseInt reads it (base 10, an optional sign, digits only); undefined when it cannot. */
const parseRevision = (text: string): number | undefined => (/^[+-]?\d+$/.test(text) ? Number(text) : undefined);

/** Revision: the revision annotation as a number, 0 when absent or not an integer (MaxRevision then skips it). */
export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): number {
  const text = obj.metadata.annotations?.[REVISION_ANNOTATION];
  return (text === undefined ? undefined : parseRevision(text)) ?? 0;
}

export const maxRevision = (sets: ReplicaSet[]): number => sets.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0);

/** The template with its pod-template-hash label removed, for EqualIgnoreHash. */
function withoutHash(template: PodTemplateSpec | undefined): PodTemplateSpec {
  const copy = jsonClone(template ?? ({} as PodTemplateSpec));
  const labels = copy.metadata?.labels;
  if (labels) {
    delete labels[POD_TEMPLATE_HASH_LABEL];
    if (Object.keys(labels).length === 0) delete copy.metadata.labels;
  }
  return copy;
}

/** EqualIgnoreHash. */
export const equalIgnoreHash = (a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean => jsonEqual(withoutHash(a), withoutHash(b));

const createdMs = (rs: ReplicaSet): number => (rs.metadata.creationTimestamp ? Date.parse(rs.metadata.creationTimestamp) : 0);

/** controller.ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  return createdMs(a) - createdMs(b) || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's. */
export function findNewReplicaSet(d: Deployment, sets: ReplicaSet[]): ReplicaSet | undefined {
  return [...sets].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

export const activeReplicaSets = (sets: (ReplicaSet | undefined)[]): ReplicaSet[] => sets.filter((rs): rs is ReplicaSet => !!rs && rsReplicas(rs) > 0);

const sum = (sets: (ReplicaSet | undefined)[], count: (rs: ReplicaSet) => number): number => sets.reduce((total, rs) => total + (rs ? count(rs) : 0), 0);
/** GetReplicaCountForReplicaSets: what the ReplicaSets are asked for. */
export const specReplicas = (sets: (ReplicaSet | undefined)[]): number => sum(sets, rsReplicas);
/** GetActualReplicaCountForReplicaSets. */
export const actualReplicas = (sets: (ReplicaSet | undefined)[]): number => sum(sets, (rs) => rs.status?.replicas ?? 0);
export const readyReplicas = (sets: (ReplicaSet | undefined)[]): number => sum(sets, (rs) => rs.status?.readyReplicas ?? 0);
export const availableReplicas = (sets: (ReplicaSet | undefined)[]): number => sum(sets, (rs) => rs.status?.availableReplicas ?? 0);

/**
 * GetTerminatingReplicaCountForReplicaSets: a ReplicaSet never synced yet counts nothing; one
 * synced without the count (its controller's gate off) leaves the total unknown.
 */
export function terminatingReplicas(sets: (ReplicaSet | undefined)[]): number | undefined {
  let total = 0;
  for (const rs of sets) {
    if (!rs) continue;
    const count = rs.status?.terminatingReplicas;
    if (count === undefined && (rs.status?.observedGeneration ?? 0) === 0) continue;
    if (count === undefined) return undefined;
    total += count;
  }
  return total;
}

/** FindActiveOrLatest: the one ReplicaSet with pods, or the newest when none has any; undefined when several have. */
export function findActiveOrLatest(newRs: ReplicaSet | undefined, oldSets: ReplicaSet[]): ReplicaSet | undefined {
  if (!newRs && oldSets.length === 0) return undefined;
  const newestFirst = [...oldSets].sort((a, b) => byCreation(b, a));
  const active = activeReplicaSets([...newestFirst, newRs]);
  if (active.length === 0) return newRs ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/** A replica annotation read as kube's getNonNegativeInt32FromAnnotation: a signless decimal within int32, else none. */
const replicasAnnotation = (rs: ReplicaSet, key: string): number | undefined => {
  const text = rs.metadata.annotations?.[key];
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value <= MAX_INT32 ? value : undefined;
};
export const desiredReplicasAnnotation = (rs: ReplicaSet): number | undefined => replicasAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);

/** IsSaturated: the new ReplicaSet has all of the Deployment's replicas, available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = desiredReplicas(d);
  return rsReplicas(rs) === desired && desiredReplicasAnnotation(rs) === desired && (rs.status?.availableReplicas ?? 0) === desired;
}

/** SetReplicasAnnotations; true when they changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = (rs.metadata.annotations ??= {});
  const changed = annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || annotations[MAX_REPLICAS_ANNOTATION] !== String(max);
  annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
  annotations[MAX_REPLICAS_ANNOTATION] = String(max);
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = rs.metadata.annotations ?? {};
  return annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || annotations[MAX_REPLICAS_ANNOTATION] !== String(max);
}

/** copyDeploymentAnnotationsToReplicaSet; true when one changed. */
function copyAnnotations(d: Deployment, rs: ReplicaSet): boolean {
  const target = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [key, value] of Object.entries(d.metadata.annotations ?? {})) {
    if (ANNOTATIONS_TO_SKIP.has(key) || target[key] === value) continue;
    target[key] = value;
    changed = true;
  }
  return changed;
}

/**
 * SetNewReplicaSetAnnotations: the Deployment's annotations, the revision (only ever raised; a
 * ReplicaSet brought back by a rollback keeps its former revisions in revision-history), and on a
 * ReplicaSet about to be created the replica annotations. True when something changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): boolean {
  let changed = copyAnnotations(d, rs);
  const annotations = (rs.metadata.annotations ??= {});
  const oldText = annotations[REVISION_ANNOTATION];
  const oldRevision = oldText === undefined || oldText === '' ? 0 : parseRevision(oldText);
  if (oldRevision === undefined) return false;
  if (oldRevision < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldText !== undefined) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') {
        annotations[REVISION_HISTORY_ANNOTATION] = oldText;
      } else {
        const revisions = history.split(',');
        let length = history.length + oldText.length + 1;
        let start = 0;
        while (length > MAX_REVISION_HISTORY_CHARS && start < revisions.length) length -= revisions[start++].length + 1;
        if (length <= MAX_REVISION_HISTORY_CHARS) annotations[REVISION_HISTORY_ANNOTATION] = [...revisions.slice(start), oldText].join(',');
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, desiredReplicas(d), desiredReplicas(d) + maxSurge(d))) changed = true;
  return changed;
}

/** SetDeploymentRevision; true when it changed. */
export function setDeploymentRevision(d: Deployment, revision: string): boolean {
  const annotations = (d.metadata.annotations ??= {});
  if (annotations[REVISION_ANNOTATION] === revision) return false;
  annotations[REVISION_ANNOTATION] = revision;
  return true;
}

/** NewRSNewReplicas: how far the new ReplicaSet may grow now. */
export function newReplicaSetReplicas(d: Deployment, allSets: (ReplicaSet | undefined)[], newRs: ReplicaSet): number {
  const desired = desiredReplicas(d);
  if (!isRollingUpdate(d)) return desired;
  const surge = scaledValue(d.spec?.strategy?.rollingUpdate?.maxSurge, desired, true);
  const current = specReplicas(allSets);
  const maxTotal = desired + surge;
  if (current >= maxTotal) return rsReplicas(newRs);
  return rsReplicas(newRs) + Math.min(maxTotal - current, desired - rsReplicas(newRs));
}

/** integer.RoundToInt32: halves away from zero, as Go's math.Round. */
const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

/** GetReplicaSetProportion: this ReplicaSet's share of a change in the Deployment's size. */
export function replicaSetProportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (rsReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const allowed = toAdd - added;
  const fraction = replicaSetFraction(rs, d);
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/**
 * getReplicaSetFraction: the ReplicaSet's size scaled by the Deployment's new maximum over the one
 * it was sized for (its max-replicas annotation, else the Deployment's counted replicas). With
 * neither, no share: the whole change then goes to the largest ReplicaSet, as kube 1.33+ does
 * rather than divide by zero.
 */
function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (desiredReplicas(d) === 0) return -rsReplicas(rs);
  const maxBeforeScale = replicasAnnotation(rs, MAX_REPLICAS_ANNOTATION) || d.status?.replicas || 0;
  if (maxBeforeScale === 0) return 0;
  return roundHalfAway((rsReplicas(rs) * (desiredReplicas(d) + maxSurge(d))) / maxBeforeScale) - rsReplicas(rs);
}

export function condition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** NewDeploymentCondition. */
export function newCondition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, now: string): DeploymentCondition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/** SetDeploymentCondition: the same status and reason is no change; the same status keeps its transition time. */
export function setCondition(status: DeploymentStatus, next: DeploymentCondition): void {
  const current = condition(status, next.type!);
  if (current && current.status === next.status && current.reason === next.reason) return;
  const placed = current && current.status === next.status ? { ...next, lastTransitionTime: current.lastTransitionTime } : next;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== next.type), placed];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  status.conditions = (status.conditions ?? []).filter((c) => c.type !== type);
  if (status.conditions.length === 0) delete status.conditions;
}

/** DeploymentComplete. */
export function deploymentComplete(d: Deployment, status: DeploymentStatus): boolean {
  const desired = desiredReplicas(d);
  return (
    (status.updatedReplicas ?? 0) === desired &&
    (status.replicas ?? 0) === desired &&
    (status.availableReplicas ?? 0) === desired &&
    (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** DeploymentProgressing: more updated, ready or available pods, or fewer old ones, than the stored status says. */
export function deploymentProgressing(d: Deployment, status: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (
    (status.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (status.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (status.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** DeploymentTimedOut: no progress reported for progressDeadlineSeconds. */
export function deploymentTimedOut(d: Deployment, status: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const progressing = condition(status, 'Progressing');
  if (!progressing || progressing.reason === REASON.newReplicaSetAvailable) return false;
  if (progressing.reason === REASON.timedOut) return true;
  return Date.parse(progressing.lastUpdateTime ?? '') + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 < nowMs;
}
