import type { Job } from '../../generated/types/batch/v1';

/** jobutil.IsJobFinished: a Complete or Failed condition that is True. */
function finishedCondition(job: Job) {
  return (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** needsCleanup: a finished Job with ttlSecondsAfterFinished set. */
export function needsCleanup(job: Job): boolean {
  return job.spec?.ttlSecondsAfterFinished != null && finishedCondition(job) !== undefined;
}

export type Expiry = { kind: 'none' } | { kind: 'at'; ms: number; finishedInFuture: boolean } | { kind: 'error'; message: string };

/**
 * processTTL / getFinishAndExpireTime / jobFinishTime: when a finished Job is due for deletion,
 * counted from its finishing condition's lastTransitionTime; a Job without that time cannot be
 * cleaned up (kube's error, retried).
 */
export function expiryOf(job: Job, nowMs: number): Expiry {
  if (job.metadata.deletionTimestamp || !needsCleanup(job)) return { kind: 'none' };
  const finishedAt = finishedCondition(job)?.lastTransitionTime;
  const finishedMs = finishedAt ? Date.parse(finishedAt) : NaN;
  if (Number.isNaN(finishedMs)) {
    return { kind: 'error', message: `unable to find the time when the Job ${job.metadata.namespace}/${job.metadata.name} finished` };
  }
  return { kind: 'at', ms: finishedMs + job.spec!.ttlSecondsAfterFinished! * 1000, finishedInFuture: finishedMs > nowMs };
}
