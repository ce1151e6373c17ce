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
