/** DefaultJobPodFailureBackOff: the first delay before a failed pod is replaced; it doubles with each further failure. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
/** MaxJobPodFailureBackOff. */
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

/** backoffRecord: failures of a job's pods since its last success, and when the last one finished. */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime: number | null;
}

export const NO_FAILURES: BackoffRecord = { failuresAfterLastSuccess: 0, lastFailureTime: null };

/** newBackoffRecord: after a new success, only the failures that finished later count; else each new failure adds one. */
export function nextBackoffRecord(previous: BackoffRecord, newSuccessTimes: number[], newFailureTimes: number[]): BackoffRecord {
  const lastSuccess = newSuccessTimes.length > 0 ? Math.max(...newSuccessTimes) : null;
  const base = lastSuccess === null ? previous : NO_FAILURES;
  const failures = lastSuccess === null ? newFailureTimes : newFailureTimes.filter((t) => t > lastSuccess);
  if (failures.length === 0) return base;
  return {
    failuresAfterLastSuccess: base.failuresAfterLastSuccess + failures.length,
    lastFailureTime: Math.max(base.lastFailureTime ?? 0, ...failures),
  };
}

/** getRemainingTimePerIndex/getRemainingTime: how long pod creation still waits, 0 when it need not. */
export function remainingBackoffMs(record: BackoffRecord, nowMs: number): number {
  if (record.failuresAfterLastSuccess === 0 || record.lastFailureTime === null) return 0;
  const delay = Math.min(POD_FAILURE_BACKOFF_MS * 2 ** (record.failuresAfterLastSuccess - 1), MAX_POD_FAILURE_BACKOFF_MS);
  return Math.max(0, delay - (nowMs - record.lastFailureTime));
}
