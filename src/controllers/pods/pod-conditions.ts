import type { Pod, PodCondition } from '../../generated/types/core/v1';

/** podutil.GetPodCondition. */
export function podCondition(pod: Pod, type: PodCondition['type']): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

/**
 * podutil.IsPodAvailable: ready for at least minReadySeconds (by the Ready condition's
 * lastTransitionTime), now being epoch milliseconds.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  const ready = podCondition(pod, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= nowMs;
}

/** Succeeded or Failed: its containers will not run again. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** controller.IsPodActive: not terminal and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  return !isPodTerminal(pod) && !pod.metadata.deletionTimestamp;
}

/** controller.IsPodTerminating: being deleted, its containers not yet finished. */
export function isPodTerminating(pod: Pod): boolean {
  return !isPodTerminal(pod) && !!pod.metadata.deletionTimestamp;
}
