/** The completion index annotation (and label) kube's job controller puts on an Indexed Job's pods. */
export const JOB_COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
/** How many times an index's pods failed before this one (backoffLimitPerIndex). */
export const JOB_INDEX_FAILURE_COUNT = 'batch.kubernetes.io/job-index-failure-count';
/** Failures of an index a podFailurePolicy Ignore rule did not count. */
export const JOB_INDEX_IGNORED_FAILURE_COUNT = 'batch.kubernetes.io/job-index-ignored-failure-count';

/** getCompletionIndex: the pod's index when it is a valid one, else null. */
export function completionIndexOf(annotations: Record<string, string> | undefined, completions: number): number | null {
  const value = annotations?.[JOB_COMPLETION_INDEX];
  if (value === undefined || !/^\d+$/.test(value)) return null;
  const index = Number(value);
  return index < completions ? index : null;
}

/** Sorted indexes as the status writes them: "1,3-5,7". */
export function formatIntervals(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** parseIndexesFromString: what a status's interval list holds, indexes at or past `completions` left out. */
export function parseIntervals(text: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const last = Math.min(Number(m[2] ?? m[1]), completions - 1);
    for (let i = Number(m[1]); i <= last; i++) out.add(i);
  }
  return out;
}
