import { ManualClock } from '../api/clock';
import { MAX_UNSCHEDULABLE_MS, SchedulingQueue } from './scheduling-queue';

function queue() {
  const clock = new ManualClock();
  let wakes = 0;
  const q = new SchedulingQueue(clock, () => wakes++);
  return { clock, q, wakes: () => wakes };
}

test('highest priority first, then the longest waiting', async () => {
  const { clock, q } = queue();
  q.add('low', 0);
  await clock.advance(10);
  q.add('high', 100);
  q.add('later-low', 0);
  expect([q.pop(), q.pop(), q.pop(), q.pop()]).toEqual(['high', 'low', 'later-low', null]);
});

test('an unschedulable pod waits for a cluster change, then for its backoff (1s, 2s, ... at most 10s)', async () => {
  const { clock, q } = queue();
  q.add('p', 0);
  expect(q.pop()).toBe('p');
  q.failed('p', true);
  // Parked: time alone (short of five minutes) does not bring it back.
  await clock.advance(5000);
  expect(q.pop()).toBeNull();
  q.moveAll();
  expect(q.pop()).toBe('p');
  q.failed('p', true);
  q.moveAll();
  // Second failure: 2 s of backoff from the failure.
  expect(q.pop()).toBeNull();
  await clock.advance(1999);
  expect(q.pop()).toBeNull();
  await clock.advance(1);
  expect(q.pop()).toBe('p');
  for (let i = 0; i < 6; i++) {
    q.failed('p', false);
    await clock.advance(10_000);
    expect(q.pop()).toBe('p');
  }
});

test('a change during an attempt sends the pod to backoff, not to wait for the next change; five minutes parked is enough', async () => {
  const { clock, q } = queue();
  q.add('p', 0);
  expect(q.pop()).toBe('p');
  q.moveAll();
  q.failed('p', true);
  await clock.advance(1000);
  expect(q.pop()).toBe('p');
  q.failed('p', true);
  await clock.advance(MAX_UNSCHEDULABLE_MS);
  expect(q.pop()).toBeNull();
  q.flushLeftover();
  expect(q.pop()).toBe('p');
  // A pod deleted meanwhile is forgotten.
  q.failed('p', true);
  q.delete('p');
  q.moveAll();
  await clock.advance(20_000);
  expect(q.pop()).toBeNull();
});
