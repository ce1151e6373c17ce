import type { Taint, Toleration } from '../../generated/types/core/v1';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** nodeConditionToTaintKeyStatusMap: a node condition in this status puts this NoSchedule taint on the node. */
export const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: TAINT_NOT_READY, Unknown: TAINT_UNREACHABLE },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
};

/** Taint.MatchTaint: the same key and effect. */
export const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;

/** Toleration.ToleratesTaint: an effect and key it names agree, and so does the value unless the operator is Exists. */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key !== undefined && toleration.key !== '' && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/**
 * GetMatchingTolerations: whether every taint is tolerated, and the tolerations that do it.
 */
export function matchingTolerations(taints: Taint[], tolerations: Toleration[]): { all: boolean; used: Toleration[] } {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const matched = tolerations.filter((t) => tolerates(t, taint));
    if (matched.length === 0) return { all: false, used: [] };
    used.push(...matched);
  }
  return { all: true, used };
}

/**
 * getMinTolerationTime, in milliseconds: 0 without tolerations or when one has tolerationSeconds
 * ≤ 0, the least of their tolerationSeconds, or null (forever) when none sets it.
 */
export function minTolerationMs(tolerations: Toleration[]): number | null {
  if (tolerations.length === 0) return 0;
  let min: number | null = null;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = min === null ? t.tolerationSeconds : Math.min(min, t.tolerationSeconds);
  }
  return min === null ? null : min * 1000;
}
