import type { Job } from '../../generated/types/batch/v1';
import { byJobStartTime } from './cronjob-controller';

test('finished jobs go in the order kube prunes them: started ones by start time, then the never started, ties by name', () => {
  const job = (name: string, startTime?: string): Job => ({
    metadata: { name, creationTimestamp: '2026-01-01T00:00:00Z' },
    status: startTime ? { startTime } : {},
  });
  const jobs = [job('z-unstarted'), job('b', '2026-01-01T00:01:00Z'), job('a-unstarted'), job('c', '2026-01-01T00:00:30Z'), job('a', '2026-01-01T00:01:00Z')];
  expect(jobs.sort(byJobStartTime).map((j) => j.metadata.name)).toEqual(['c', 'a', 'b', 'a-unstarted', 'z-unstarted']);
});
