import type { Pod } from '../generated/types/core/v1';
import type { Rejection } from './framework';

export const NO_NODES = 'no nodes available to schedule pods';

/** "N reason" for each reason, sorted as strings (FitError's sortReasonsHistogram). */
function histogram(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts]
    .map(([reason, n]) => `${n} ${reason}`)
    .sort()
    .join(', ');
}

/**
 * DefaultPreemption's PostFilter message when it finds no victims: a node turned down for good
 * is "not helpful", any other has no pod of lower priority to evict (kapi does not preempt).
 */
function preemptionMessage(pod: Pod, numNodes: number, rejections: Rejection[] | null): string {
  if (pod.spec?.preemptionPolicy === 'Never') return 'preemption: not eligible due to preemptionPolicy=Never.';
  const perNode = rejections
    ? rejections.map((r) =>
        r.code === 'UnschedulableAndUnresolvable' ? 'Preemption is not helpful for scheduling' : 'No preemption victims found for incoming pod',
      )
    : Array<string>(numNodes).fill('Preemption is not helpful for scheduling');
  return `preemption: 0/${numNodes} nodes are available: ${histogram(perNode)}.`;
}

/**
 * FitError.Error() as kube-scheduler 1.34 writes it into PodScheduled and FailedScheduling: the
 * PreFilter's reason, or each node's filter reasons counted; then the PostFilter plugins'
 * (DynamicResources, which has no claims to free, and DefaultPreemption).
 */
export function fitErrorMessage(pod: Pod, numNodes: number, failure: { preFilter: string } | { rejections: Rejection[] }): string {
  const reasons = 'preFilter' in failure ? failure.preFilter : histogram(failure.rejections.flatMap((r) => r.reasons));
  const preemption = preemptionMessage(pod, numNodes, 'preFilter' in failure ? null : failure.rejections);
  return `0/${numNodes} nodes are available: ${reasons}. no new claims to deallocate, ${preemption}`;
}
