import { yieldToRequests } from './turn-budget';

const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning, as a CPU-bound item would
  }
};

test('internal work takes turns: a timer due meanwhile runs between items, and waiting work resumes in order', async () => {
  const done: number[] = [];
  let doneWhenTimerRan = -1;
  const timer = new Promise<void>((resolve) =>
    setTimeout(() => {
      doneWhenTimerRan = done.length;
      resolve();
    }, 0),
  );
  // Forty workers of five CPU-bound items each, all ready at once.
  const worker = async (id: number): Promise<void> => {
    for (let i = 0; i < 5; i++) {
      await yieldToRequests();
      busy(1);
      done.push(id);
    }
  };
  await Promise.all(Array.from({ length: 40 }, (_, id) => worker(id)));
  await timer;
  expect(done).toHaveLength(200);
  // Without turns, every item would run before the loop reached its timers.
  expect(doneWhenTimerRan).toBeGreaterThanOrEqual(0);
  expect(doneWhenTimerRan).toBeLessThan(100);
  // First come first served: each round of items is done before the next round starts.
  for (let round = 0; round < 5; round++) expect(new Set(done.slice(round * 40, round * 40 + 40)).size).toBe(40);
});
