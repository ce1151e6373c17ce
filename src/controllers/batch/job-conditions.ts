import type { Job, JobCondition } from '../../generated/types/batch/v1';

export type JobConditionType = 'Complete' | 'Failed' | 'FailureTarget' | 'SuccessCriteriaMet' | 'Suspended';

/** A condition the controller has decided on, before it is stamped with a time. */
export interface Verdict {
  type: 'FailureTarget' | 'SuccessCriteriaMet';
  reason: string;
  message: string;
}

export const BACKOFF_LIMIT_EXCEEDED: Verdict = {
  type: 'FailureTarget',
  reason: 'BackoffLimitExceeded',
  message: 'Job has reached the specified backoff limit',
};
export const DEADLINE_EXCEEDED: Verdict = { type: 'FailureTarget', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
export const MAX_FAILED_INDEXES_EXCEEDED: Verdict = {
  type: 'FailureTarget',
  reason: 'MaxFailedIndexesExceeded',
  message: 'Job has exceeded the specified maximal number of failed indexes',
};
export const FAILED_INDEXES: Verdict = { type: 'FailureTarget', reason: 'FailedIndexes', message: 'Job has failed indexes' };
export const COMPLETIONS_REACHED: Verdict = { type: 'SuccessCriteriaMet', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };

export function jobCondition(job: Job, type: JobConditionType): JobCondition | undefined {
  return (job.status?.conditions ?? []).find((c) => c.type === type);
}

export const hasJobCondition = (job: Job, type: JobConditionType): boolean => jobCondition(job, type)?.status === 'True';

/** IsJobFinished: Complete or Failed. */
export const isJobFinished = (job: Job): boolean => hasJobCondition(job, 'Complete') || hasJobCondition(job, 'Failed');

/**
 * ensureJobConditionStatus: a condition of that type set to the status, reason and message; the
 * transition time moves only when the status changes. Returns the conditions unchanged when nothing would.
 */
export function withCondition(
  conditions: JobCondition[] | undefined,
  type: JobConditionType,
  status: 'True' | 'False',
  reason: string,
  message: string,
  now: string,
): JobCondition[] {
  const list = conditions ?? [];
  const existing = list.find((c) => c.type === type);
  if (!existing) return status === 'False' ? list : [...list, { type, status, lastProbeTime: now, lastTransitionTime: now, reason, message }];
  if (existing.status === status && existing.reason === reason && existing.message === message) return list;
  const transition = existing.status === status ? existing.lastTransitionTime : now;
  return list.map((c) => (c === existing ? { type, status, lastProbeTime: now, lastTransitionTime: transition, reason, message } : c));
}
