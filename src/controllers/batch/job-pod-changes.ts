import type { Job } from '../../generated/types/batch/v1';
import type { Pod } from '../../generated/types/core/v1';
import { isPodReady as isReady, isPodTerminal as isTerminal } from '../pods/pod-conditions';
import { onlyReplaceFailedPods, type JobAssessment } from './job-assessment';
import { completionIndexOf } from './indexes';
import { compareGoStrings } from '../../api/go-string-order';

/** The pods to create (by completion index, null for a NonIndexed job) and to delete. */
export interface PodChanges {
  create: (number | null)[];
  remove: Pod[];
}

/** Which of the active pods go first when there are too many: not ready before ready, newer before older (controller.ActivePods, reversed). */
function deletionOrder(a: Pod, b: Pod): number {
  if (isReady(a) !== isReady(b)) return isReady(a) ? 1 : -1;
  return compareGoStrings(b.metadata.creationTimestamp ?? '', a.metadata.creationTimestamp ?? '');
}

/**
 * manageJob: how many pods the job wants running (parallelism, no more than the completions left)
 * and so which to start and which to delete; a suspended or decided job keeps none.
 */
export function podChanges(job: Job, a: JobAssessment, pods: Pod[]): PodChanges {
  const spec = job.spec ?? {};
  if (spec.suspend || a.verdict) return { create: [], remove: a.active };
  const parallelism = spec.parallelism ?? 1;
  const terminating = onlyReplaceFailedPods(job) ? a.terminating : 0;
  if (spec.completionMode === 'Indexed') return indexedChanges(job, a, pods, parallelism, terminating);
  let want: number;
  if (spec.completions == null) want = a.succeeded > 0 ? a.active.length : parallelism;
  else want = Math.max(0, Math.min(parallelism, spec.completions - a.succeeded));
  const surplus = a.active.length - want;
  if (surplus > 0) return { create: [], remove: [...a.active].sort(deletionOrder).slice(0, surplus) };
  return { create: new Array<null>(Math.max(0, want - a.active.length - terminating)).fill(null), remove: [] };
}

function indexedChanges(job: Job, a: JobAssessment, pods: Pod[], parallelism: number, terminating: number): PodChanges {
  const completions = job.spec?.completions ?? 0;
  const remove: Pod[] = [];
  const running = new Map<number, Pod>();
  // firstPendingIndexes / appendDuplicatedIndexPodsForRemoval: one pod per index, none for an index that is done.
  for (const pod of [...a.active].sort((x, y) => -deletionOrder(x, y))) {
    const index = completionIndexOf(pod.metadata.annotations, completions);
    if (index === null || running.has(index) || a.completedIndexes.has(index) || a.failedIndexes.has(index)) remove.push(pod);
    else running.set(index, pod);
  }
  const surplus = running.size - parallelism;
  if (surplus > 0) {
    const extra = [...running.values()].sort(deletionOrder).slice(0, surplus);
    return { create: [], remove: [...remove, ...extra] };
  }
  const busy = new Set(running.keys());
  if (terminating > 0) {
    for (const pod of pods) {
      const index = completionIndexOf(pod.metadata.annotations, completions);
      if (index !== null && pod.metadata.deletionTimestamp && !isTerminal(pod)) busy.add(index);
    }
  }
  const create: number[] = [];
  for (let i = 0; i < completions && create.length < parallelism - running.size - terminating; i++) {
    if (!busy.has(i) && !a.completedIndexes.has(i) && !a.failedIndexes.has(i)) create.push(i);
  }
  return { create, remove };
}
