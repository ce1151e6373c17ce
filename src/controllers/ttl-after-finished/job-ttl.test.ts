import type { Job } from '../../generated/types/batch/v1';
import { expiryOf, needsCleanup } from './job-ttl';

const job = (ttl: number | undefined, conditions: { type: string; status: string; lastTransitionTime?: string }[], deleting = false): Job => ({
  metadata: { name: 'j', namespace: 'ns', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { template: { metadata: {} }, ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }) },
  status: { conditions },
});
const at = (iso: string) => Date.parse(iso);

test('only a Job with a TTL and a True Complete or Failed condition needs cleaning up', () => {
  expect(needsCleanup(job(10, [{ type: 'Complete', status: 'True' }]))).toBe(true);
  expect(needsCleanup(job(0, [{ type: 'Failed', status: 'True' }]))).toBe(true);
  expect(needsCleanup(job(undefined, [{ type: 'Complete', status: 'True' }]))).toBe(false);
  expect(
    needsCleanup(
      job(10, [
        { type: 'Complete', status: 'False' },
        { type: 'SuccessCriteriaMet', status: 'True' },
      ]),
    ),
  ).toBe(false);
});

test("the expiry is the finishing condition's transition time plus the TTL", () => {
  const finished = job(30, [
    { type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'Complete', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' },
  ]);
  expect(expiryOf(finished, at('2026-01-01T00:00:10Z'))).toEqual({ kind: 'at', ms: at('2026-01-01T00:00:35Z'), finishedInFuture: false });
  expect(expiryOf(finished, at('2026-01-01T00:00:01Z'))).toEqual({ kind: 'at', ms: at('2026-01-01T00:00:35Z'), finishedInFuture: true });
  expect(expiryOf(job(30, [{ type: 'Complete', status: 'True' }]), 0)).toEqual({
    kind: 'error',
    message: 'unable to find the time when the Job ns/j finished',
  });
  expect(expiryOf(job(30, [{ type: 'Failed', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }], true), 0)).toEqual({ kind: 'none' });
});
