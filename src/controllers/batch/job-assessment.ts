import type { Job } from '../../generated/types/batch/v1';
import type { Pod } from '../../generated/types/core/v1';
import { isPodActive, isPodReady, isPodTerminating } from '../pods/pod-conditions';
import { nextBackoffRecord, type BackoffRecord } from './job-backoff';
import {
  BACKOFF_LIMIT_EXCEEDED,
  COMPLETIONS_REACHED,
  DEADLINE_EXCEEDED,
  FAILED_INDEXES,
  jobCondition,
  MAX_FAILED_INDEXES_EXCEEDED,
  type Verdict,
} from './job-conditions';
import { JOB_TRACKING_FINALIZER } from './job-pod-template';
import { completionIndexOf, JOB_INDEX_FAILURE_COUNT, JOB_INDEX_IGNORED_FAILURE_COUNT, parseIntervals } from './indexes';
import { matchPodFailurePolicy } from './pod-failure-policy';

/** What one look at a job and its pods finds, before anything is written. */
export interface JobAssessment {
  /** Finished pods that still hold the tracking finalizer: it is to be removed from each. */
  finishing: Pod[];
  /** status.uncountedTerminatedPods with the newly finished pods' uids added. */
  uncounted: { succeeded: string[]; failed: string[] };
  /** Counted and uncounted together: what status.succeeded/failed become once the uncounted are moved over. */
  succeeded: number;
  failed: number;
  completedIndexes: Set<number>;
  failedIndexes: Set<number>;
  active: Pod[];
  ready: number;
  terminating: number;
  /** FailureTarget or SuccessCriteriaMet: kept from the status, or reached now. */
  verdict: Verdict | null;
  backoff: BackoffRecord;
  /** Per index of an Indexed job with backoffLimitPerIndex: the failures its next pod carries. */
  indexFailures: Map<number, { failed: number; ignored: number }>;
}

const hasFinalizer = (pod: Pod): boolean => (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);

/** onlyReplaceFailedPods: a pod being deleted is replaced only once it has failed. */
export const onlyReplaceFailedPods = (job: Job): boolean => job.spec?.podReplacementPolicy === 'Failed' || job.spec?.podFailurePolicy != null;

/** isPodFailed: a failed pod, or (unless only failed pods are replaced) one deleted before it succeeded. */
function isPodFailed(pod: Pod, job: Job): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!pod.metadata.deletionTimestamp && pod.status?.phase !== 'Succeeded';
}

/** getFinishedTime: the last container's finish, else when Ready went False, else the deletion, else the creation. */
export function finishedTime(pod: Pod): number {
  const statuses = pod.status?.containerStatuses ?? [];
  const finishes = statuses.map((s) => s.state?.terminated?.finishedAt);
  if (statuses.length > 0 && finishes.every((t) => !!t)) return Math.max(...finishes.map((t) => Date.parse(t!)));
  const ready = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');
  if (ready?.status === 'False' && ready.lastTransitionTime) return Date.parse(ready.lastTransitionTime);
  if (pod.metadata.deletionTimestamp) return Date.parse(pod.metadata.deletionTimestamp) - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return Date.parse(pod.metadata.creationTimestamp ?? '') || 0;
}

const annotationCount = (pod: Pod, key: string): number => Number(pod.metadata.annotations?.[key] ?? 0) || 0;

/** pastActiveDeadline: activeDeadlineSeconds counted from startTime. */
export function activeDeadlineRemainingMs(job: Job, nowMs: number): number | null {
  const seconds = job.spec?.activeDeadlineSeconds;
  const start = job.status?.startTime;
  if (seconds == null || !start || job.spec?.suspend) return null;
  return Date.parse(start) + seconds * 1000 - nowMs;
}

/** matchSuccessPolicy: the first rule whose indexes (or count of them) have all succeeded. */
function successPolicyVerdict(job: Job, completed: Set<number>): Verdict | null {
  const completions = job.spec?.completions ?? 0;
  for (const [index, rule] of (job.spec?.successPolicy?.rules ?? []).entries()) {
    const wanted = rule.succeededIndexes === undefined ? null : parseIntervals(rule.succeededIndexes, completions);
    const done = wanted === null ? completed.size : [...wanted].filter((i) => completed.has(i)).length;
    const needed = rule.succeededCount ?? wanted?.size ?? 0;
    if (needed > 0 && done >= needed) return { type: 'SuccessCriteriaMet', reason: 'SuccessPolicy', message: `Matched rules at index ${index}` };
  }
  return null;
}

/**
 * What syncJob and trackJobStatusAndRemoveFinalizers work out from a job and its pods: which
 * finished pods are newly counted (a pod still holding the tracking finalizer and not yet in
 * uncountedTerminatedPods), the counts and indexes that makes, and whether the job has met its
 * success criteria or a failure target (pod failure policy, backoff limits, deadline).
 */
export function assessJob(job: Job, pods: Pod[], nowMs: number, previousBackoff: BackoffRecord): JobAssessment {
  const spec = job.spec ?? {};
  const status = job.status ?? {};
  const indexed = spec.completionMode === 'Indexed';
  const completions = spec.completions ?? 0;
  const uncountedSucceeded = new Set(status.uncountedTerminatedPods?.succeeded ?? []);
  const uncountedFailed = new Set(status.uncountedTerminatedPods?.failed ?? []);
  const completedIndexes = indexed ? parseIntervals(status.completedIndexes, completions) : new Set<number>();
  const failedIndexes = indexed ? parseIntervals(status.failedIndexes, completions) : new Set<number>();
  const perIndex = indexed && spec.backoffLimitPerIndex != null;
  const indexFailures = new Map<number, { failed: number; ignored: number }>();
  const kept = jobCondition(job, 'FailureTarget') ?? jobCondition(job, 'SuccessCriteriaMet');
  let verdict: Verdict | null = kept?.status === 'True' ? { type: kept.type as Verdict['type'], reason: kept.reason ?? '', message: kept.message ?? '' } : null;

  const finishing: Pod[] = [];
  const newSuccessTimes: number[] = [];
  const newFailureTimes: number[] = [];
  const sortedPods = [...pods].sort((a, b) => finishedTime(a) - finishedTime(b));
  for (const pod of sortedPods) {
    const uid = pod.metadata.uid ?? '';
    const index = indexed ? completionIndexOf(pod.metadata.annotations, completions) : null;
    if (perIndex && index !== null && pod.status?.phase === 'Failed') {
      indexFailures.set(index, { failed: annotationCount(pod, JOB_INDEX_FAILURE_COUNT) + 1, ignored: annotationCount(pod, JOB_INDEX_IGNORED_FAILURE_COUNT) });
    }
    if (!hasFinalizer(pod)) continue;
    if (uncountedSucceeded.has(uid) || uncountedFailed.has(uid)) {
      finishing.push(pod);
      continue;
    }
    const failed = isPodFailed(pod, job);
    const succeeded = pod.status?.phase === 'Succeeded';
    // canRemoveFinalizer: a pod being deleted under a failure policy waits for its phase.
    if (!succeeded && !(failed && (!onlyReplaceFailedPods(job) || pod.status?.phase === 'Failed')) && !job.metadata.deletionTimestamp) continue;
    finishing.push(pod);
    if (succeeded) {
      if (indexed && (index === null || completedIndexes.has(index))) continue;
      // An Indexed job's completed indexes say which pods were counted: their uids are not listed.
      if (index !== null) completedIndexes.add(index);
      else uncountedSucceeded.add(uid);
      newSuccessTimes.push(finishedTime(pod));
      continue;
    }
    if (indexed && index === null) continue;
    const match = pod.status?.phase === 'Failed' ? matchPodFailurePolicy(spec.podFailurePolicy, pod) : null;
    if (match?.action === 'Ignore') {
      if (index !== null && perIndex)
        indexFailures.set(index, { failed: annotationCount(pod, JOB_INDEX_FAILURE_COUNT), ignored: annotationCount(pod, JOB_INDEX_IGNORED_FAILURE_COUNT) + 1 });
      continue;
    }
    uncountedFailed.add(uid);
    newFailureTimes.push(finishedTime(pod));
    if (match?.action === 'FailJob' && verdict === null) verdict = { type: 'FailureTarget', reason: 'PodFailurePolicy', message: match.message };
    if (perIndex && index !== null) {
      const failures = indexFailures.get(index)?.failed ?? 1;
      if (match?.action === 'FailIndex' || failures > spec.backoffLimitPerIndex!) failedIndexes.add(index);
    }
  }

  const active = pods.filter(isPodActive);
  const succeeded = indexed ? completedIndexes.size : (status.succeeded ?? 0) + uncountedSucceeded.size;
  let failed = (status.failed ?? 0) + uncountedFailed.size;
  if (verdict === null) verdict = failureVerdict(job, pods, failed, failedIndexes, completedIndexes, nowMs);
  if (verdict === null) {
    const complete = indexed
      ? completedIndexes.size >= completions
      : spec.completions != null
        ? succeeded >= completions
        : succeeded > 0 && active.length === 0;
    if (complete) verdict = COMPLETIONS_REACHED;
    else if (indexed) verdict = successPolicyVerdict(job, completedIndexes);
  }
  if (verdict) {
    // canRemoveFinalizer: once decided, every pod lets go; a failing job counts the unfinished ones as failed.
    const counting = new Set(finishing);
    for (const pod of pods) {
      if (!hasFinalizer(pod) || counting.has(pod)) continue;
      finishing.push(pod);
      if (pod.status?.phase === 'Succeeded' || verdict.type === 'SuccessCriteriaMet') continue;
      if (indexed && completionIndexOf(pod.metadata.annotations, completions) === null) continue;
      uncountedFailed.add(pod.metadata.uid ?? '');
    }
  }
  failed = (status.failed ?? 0) + uncountedFailed.size;
  return {
    finishing,
    uncounted: { succeeded: [...uncountedSucceeded], failed: [...uncountedFailed] },
    succeeded,
    failed,
    completedIndexes,
    failedIndexes,
    active,
    ready: active.filter(isPodReady).length,
    terminating: pods.filter(isPodTerminating).length,
    verdict,
    backoff: nextBackoffRecord(previousBackoff, newSuccessTimes, newFailureTimes),
    indexFailures,
  };
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, the restarts of the pods still pending or running count against the limit. */
function pastBackoffLimitOnFailure(job: Job, pods: Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    if (pod.status?.phase !== 'Running' && pod.status?.phase !== 'Pending') continue;
    for (const status of [...(pod.status.initContainerStatuses ?? []), ...(pod.status.containerStatuses ?? [])]) restarts += status.restartCount ?? 0;
  }
  const limit = job.spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

function failureVerdict(job: Job, pods: Pod[], failed: number, failedIndexes: Set<number>, completedIndexes: Set<number>, nowMs: number): Verdict | null {
  const spec = job.spec ?? {};
  if (spec.backoffLimitPerIndex != null && spec.completionMode === 'Indexed') {
    if (spec.maxFailedIndexes != null && failedIndexes.size > spec.maxFailedIndexes) return MAX_FAILED_INDEXES_EXCEEDED;
    if (failedIndexes.size > 0 && failedIndexes.size + completedIndexes.size >= (spec.completions ?? 0)) return FAILED_INDEXES;
  } else if (failed > (spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods)) {
    return BACKOFF_LIMIT_EXCEEDED;
  }
  const remaining = activeDeadlineRemainingMs(job, nowMs);
  return remaining !== null && remaining <= 0 ? DEADLINE_EXCEEDED : null;
}
