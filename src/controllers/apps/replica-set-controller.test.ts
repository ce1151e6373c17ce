import { slowStartBatch } from './replica-set-controller';

test('slow start: batches of 1, 2, 4, … run in parallel, stopping after the first batch with a failure', async () => {
  const batches: number[] = [];
  let inFlight = 0;
  let calls = 0;
  const fn = (failAt: number) => async () => {
    const n = ++calls;
    inFlight++;
    if (inFlight === 1) batches.push(0);
    batches[batches.length - 1]++;
    // Long enough for a batch's calls to have all started when internal work is paced (turn-budget.ts).
    await new Promise((resolve) => setTimeout(resolve, 30));
    inFlight--;
    if (n === failAt) throw new Error(`call ${n} failed`);
  };
  expect(await slowStartBatch(10, fn(0))).toEqual({ successes: 10, error: null });
  expect(batches).toEqual([1, 2, 4, 3]);

  batches.length = 0;
  calls = 0;
  const failed = await slowStartBatch(20, fn(5));
  expect(failed.successes).toBe(6);
  expect(String(failed.error)).toBe('Error: call 5 failed');
  expect(batches).toEqual([1, 2, 4]);
});
