import { WorkQueue } from './work-queue';

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('WorkQueue', () => {
  test('handles each key once per add, and again when handling is not finished or fails', async () => {
    const seen: string[] = [];
    const errors: string[] = [];
    let unfinished = 1;
    let failures = 1;
    const queue = new WorkQueue(
      async (key) => {
        seen.push(key);
        if (key === 'slow') return unfinished-- <= 0;
        if (key === 'broken' && failures-- > 0) throw new Error('boom');
        return true;
      },
      (key) => errors.push(key),
      10,
    );
    queue.add('a');
    queue.add('slow');
    queue.add('broken');
    await until(() => seen.filter((k) => k === 'slow').length === 2 && seen.filter((k) => k === 'broken').length === 2);
    expect(seen.filter((k) => k === 'a')).toEqual(['a']);
    expect(errors).toEqual(['broken']);
    queue.stop();
  });

  test('a key added while it is being handled is handled again', async () => {
    const seen: string[] = [];
    let queue!: WorkQueue;
    queue = new WorkQueue(
      async (key) => {
        seen.push(key);
        if (seen.length === 1) queue.add(key);
        return true;
      },
      () => undefined,
      10_000,
    );
    queue.add('x');
    await until(() => seen.length === 2);
    queue.stop();
  });
});

describe('WorkQueue health', () => {
  test('a handler busy with one key past the limit is reported with the key', async () => {
    const { ManualClock } = await import('./runtime/clock');
    const clock = new ManualClock();
    let release!: () => void;
    const queue = new WorkQueue(
      () => new Promise<boolean>((resolve) => (release = () => resolve(true))),
      () => undefined,
      1000,
      clock,
    );
    queue.add('ns1');
    await clock.advance(0);
    await clock.advance(30_000);
    expect(queue.stuckLongerThan(60_000)).toBeNull();
    await clock.advance(31_000);
    expect(queue.stuckLongerThan(60_000)).toEqual({ key: 'ns1', forMs: 61_000 });
    release();
    await clock.advance(0);
    expect(queue.stuckLongerThan(60_000)).toBeNull();
    queue.stop();
  });

  test('after stop() adds are ignored; start() handles keys again', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(
      async (key) => (seen.push(key), true),
      () => undefined,
      10,
    );
    queue.stop();
    queue.add('while-stopped');
    await new Promise((r) => setTimeout(r, 30));
    expect(seen).toEqual([]);
    queue.start();
    queue.add('after-start');
    await until(() => seen.includes('after-start'));
    expect(seen).toEqual(['after-start']);
    queue.stop();
  });
});
