import type { Job } from '../../generated/types/batch/v1';
import type { Pod } from '../../generated/types/core/v1';
import { assessJob } from './job-assessment';
import { NO_FAILURES, POD_FAILURE_BACKOFF_MS, remainingBackoffMs } from './job-backoff';
import { podChanges } from './job-pod-changes';
import { formatIntervals, parseIntervals } from './indexes';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const FINALIZER = 'batch.kubernetes.io/job-tracking';

function job(spec: Job['spec'], status: Job['status'] = {}): Job {
  return { metadata: { name: 'j', namespace: 'ns', uid: 'job-uid' }, spec: { parallelism: 1, backoffLimit: 6, ...spec }, status };
}

function pod(uid: string, phase: string, opts: { index?: number; exitCode?: number; failures?: number; finalizer?: boolean } = {}): Pod {
  return {
    metadata: {
      name: `p-${uid}`,
      namespace: 'ns',
      uid,
      creationTimestamp: '2025-12-31T23:59:00Z',
      finalizers: opts.finalizer === false ? undefined : [FINALIZER],
      annotations: {
        ...(opts.index !== undefined ? { 'batch.kubernetes.io/job-completion-index': String(opts.index) } : {}),
        ...(opts.failures !== undefined ? { 'batch.kubernetes.io/job-index-failure-count': String(opts.failures) } : {}),
      },
    },
    status: {
      phase: phase as 'Pending',
      ...(opts.exitCode !== undefined
        ? { containerStatuses: [{ name: 'main', state: { terminated: { exitCode: opts.exitCode, finishedAt: '2025-12-31T23:59:50Z' } } }] }
        : {}),
    },
  };
}

test('finished pods holding the finalizer are counted once: added to the uncounted, not again once there', () => {
  const j = job({ completions: 3, parallelism: 2 });
  const a = assessJob(
    j,
    [pod('a', 'Succeeded'), pod('b', 'Failed', { exitCode: 1 }), pod('c', 'Running'), pod('d', 'Succeeded', { finalizer: false })],
    NOW,
    NO_FAILURES,
  );
  expect(a.uncounted).toEqual({ succeeded: ['a'], failed: ['b'] });
  expect(a.finishing.map((p) => p.metadata.uid)).toEqual(['a', 'b']);
  expect([a.succeeded, a.failed, a.active.length, a.verdict]).toEqual([1, 1, 1, null]);
  expect(a.backoff).toEqual({ failuresAfterLastSuccess: 1, lastFailureTime: Date.parse('2025-12-31T23:59:50Z') });
  // One more pod to run (3 completions, 1 succeeded, 1 running, parallelism 2).
  expect(podChanges(j, a, []).create).toEqual([null]);

  const again = assessJob(
    job({ completions: 3 }, { uncountedTerminatedPods: { succeeded: ['a'], failed: ['b'] } }),
    [pod('a', 'Succeeded'), pod('b', 'Failed')],
    NOW,
    NO_FAILURES,
  );
  expect(again.uncounted).toEqual({ succeeded: ['a'], failed: ['b'] });
  expect([again.succeeded, again.failed]).toEqual([1, 1]);
});

test('backoffLimit, pod failure policy rules and the exponential replacement backoff', () => {
  const failing = assessJob(job({ backoffLimit: 1, completions: 2, parallelism: 2 }, { failed: 1 }), [pod('x', 'Failed', { exitCode: 1 })], NOW, NO_FAILURES);
  expect(failing.verdict).toMatchObject({ type: 'FailureTarget', reason: 'BackoffLimitExceeded' });

  const policy = {
    rules: [
      { action: 'Ignore' as const, onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob' as const, onExitCodes: { operator: 'In' as const, values: [42] } },
      { action: 'Count' as const, onExitCodes: { operator: 'NotIn' as const, values: [42] } },
    ],
  };
  const evicted = pod('e', 'Failed', { exitCode: 137 });
  evicted.status!.conditions = [{ type: 'DisruptionTarget', status: 'True' }];
  const a = assessJob(job({ podFailurePolicy: policy }), [evicted, pod('f', 'Failed', { exitCode: 42 })], NOW, NO_FAILURES);
  expect(a.uncounted.failed).toEqual(['f']);
  expect(a.verdict).toEqual({
    type: 'FailureTarget',
    reason: 'PodFailurePolicy',
    message: 'Container main for pod ns/p-f failed with exit code 42 matching FailJob rule at index 1',
  });

  expect(remainingBackoffMs({ failuresAfterLastSuccess: 1, lastFailureTime: NOW }, NOW + 4000)).toBe(POD_FAILURE_BACKOFF_MS - 4000);
  expect(remainingBackoffMs({ failuresAfterLastSuccess: 3, lastFailureTime: NOW }, NOW)).toBe(4 * POD_FAILURE_BACKOFF_MS);
  expect(remainingBackoffMs({ failuresAfterLastSuccess: 30, lastFailureTime: NOW }, NOW)).toBe(10 * 60_000);
});

test('Indexed: completed indexes, one pod per pending index, backoffLimitPerIndex and the failed indexes', () => {
  const spec = { completionMode: 'Indexed' as const, completions: 4, parallelism: 4, backoffLimitPerIndex: 1, backoffLimit: 2147483647 };
  const pods = [
    pod('a', 'Succeeded', { index: 0 }),
    pod('b', 'Failed', { index: 1, failures: 1, exitCode: 1 }),
    pod('c', 'Running', { index: 2 }),
    pod('d', 'Failed', { index: 3, failures: 0, exitCode: 1 }),
  ];
  const a = assessJob(job(spec), pods, NOW, NO_FAILURES);
  expect([formatIntervals(a.completedIndexes), formatIntervals(a.failedIndexes)]).toEqual(['0', '1']);
  expect(a.indexFailures.get(3)).toEqual({ failed: 1, ignored: 0 });
  expect(a.verdict).toBeNull();
  // Index 3 failed once (within its limit of 1) and is run again; index 1 is out of tries.
  expect(podChanges(job(spec), a, pods).create).toEqual([3]);

  expect([...parseIntervals('0,2-4,9', 5)]).toEqual([0, 2, 3, 4]);
  expect(formatIntervals([5, 1, 2, 3, 7])).toBe('1-3,5,7');
});

test('a success policy decides an Indexed job early, and its leftover pods are not counted as failed', () => {
  const spec = { completionMode: 'Indexed' as const, completions: 3, parallelism: 3, successPolicy: { rules: [{ succeededIndexes: '0' }] } };
  const a = assessJob(job(spec), [pod('a', 'Succeeded', { index: 0 }), pod('b', 'Running', { index: 1 })], NOW, NO_FAILURES);
  expect(a.verdict).toEqual({ type: 'SuccessCriteriaMet', reason: 'SuccessPolicy', message: 'Matched rules at index 0' });
  expect(a.uncounted).toEqual({ succeeded: [], failed: [] });
  expect(podChanges(job(spec), a, []).remove.map((p) => p.metadata.uid)).toEqual(['b']);
});

test('an Indexed job counts its succeeded pods by index, not by uid; OnFailure restarts count against the backoff limit', () => {
  const spec = { completionMode: 'Indexed' as const, completions: 2, parallelism: 2 };
  const a = assessJob(job(spec), [pod('a', 'Succeeded', { index: 1 }), pod('b', 'Succeeded', { index: 1 })], NOW, NO_FAILURES);
  expect(a.uncounted).toEqual({ succeeded: [], failed: [] });
  expect([a.succeeded, formatIntervals(a.completedIndexes), a.finishing.length]).toEqual([1, '1', 2]);

  const restarting = pod('r', 'Running');
  restarting.status!.containerStatuses = [{ name: 'main', restartCount: 2 }];
  const onFailure = job({ backoffLimit: 2, template: { metadata: {}, spec: { restartPolicy: 'OnFailure', containers: [] } } });
  expect(assessJob(onFailure, [restarting], NOW, NO_FAILURES).verdict).toMatchObject({ reason: 'BackoffLimitExceeded' });
});
