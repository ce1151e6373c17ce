import { BACKGROUND_MAX_WAIT_MS, LOOP_SHARE, SERVING_TURN_BUDGET_MS, TURN_BUDGET_MS, serveFirst, yieldToBackground, yieldToRequests } from './turn-budget';

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

/** The most items of 0.25 ms that internal work ran between two runs of the loop's timers. */
async function mostItemsPerIteration(): Promise<number> {
  let done = 0;
  let running = true;
  const perIteration: number[] = [];
  let seen = 0;
  // A timer of 0 (1 ms) re-armed from its own callback runs once per iteration of the loop, each of
  // which lasts at least 1 ms here: the difference between two runs is what one iteration did.
  const tick = (): void => {
    perIteration.push(done - seen);
    seen = done;
    if (running) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const worker = async (): Promise<void> => {
    // Each starts from its own callback, as work resumed by I/O does, so that the first items do not all start in one synchronous run.
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 10; i++) {
      await yieldToRequests();
      busy(0.25);
      done++;
    }
  };
  await Promise.all(Array.from({ length: 40 }, () => worker()));
  running = false;
  await new Promise((r) => setTimeout(r, 5));
  return Math.max(...perIteration);
}

test('while a server answers a client, internal work takes shorter turns', async () => {
  // Items start while the turn is under budget: at most budget / 0.25 ms + 1 of them per turn.
  expect(TURN_BUDGET_MS).toBeGreaterThan(SERVING_TURN_BUDGET_MS);
  const unregister = serveFirst(() => true);
  try {
    expect(await mostItemsPerIteration()).toBeLessThanOrEqual(Math.floor(SERVING_TURN_BUDGET_MS / 0.25) + 1);
  } finally {
    unregister();
  }
});

test('past its share of the loop, internal work is paced: the loop waits for I/O between its turns', async () => {
  const start = performance.eventLoopUtilization();
  let done = 0;
  const worker = async (): Promise<void> => {
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 10; i++) {
      await yieldToRequests();
      busy(0.5);
      done++;
    }
  };
  // 400 ms of CPU-bound items, all ready: unpaced, the loop would be busy all that time.
  await Promise.all(Array.from({ length: 80 }, () => worker()));
  const { utilization } = performance.eventLoopUtilization(start);
  expect(done).toBe(800);
  // The share is measured over the last 100-200 ms, so the run may start over it.
  expect(utilization).toBeLessThan(Math.min(LOOP_SHARE + 0.1, 0.97));
});

test('background work (events) takes a turn only when no other internal work waits, or once it has waited too long', async () => {
  const done: string[] = [];
  const worker = async (name: string, items: number, yieldFirst: () => Promise<void>): Promise<void> => {
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < items; i++) {
      await yieldFirst();
      busy(0.5);
      done.push(name);
    }
  };
  // Background items queued while 100 ms of other work waits all run after it.
  await Promise.all([
    ...Array.from({ length: 20 }, () => worker('work', 10, yieldToRequests)),
    ...Array.from({ length: 5 }, () => worker('event', 1, yieldToBackground)),
  ]);
  expect(done.slice(-5)).toEqual(['event', 'event', 'event', 'event', 'event']);

  // Under other work that never stops waiting, a background item still runs after about BACKGROUND_MAX_WAIT_MS.
  let streaming = true;
  const stream = async (): Promise<void> => {
    while (streaming) {
      await yieldToRequests();
      busy(0.5);
    }
  };
  const streams = Array.from({ length: 8 }, () => stream());
  await new Promise((r) => setTimeout(r, 20));
  const queuedAt = performance.now();
  await yieldToBackground();
  const waited = performance.now() - queuedAt;
  streaming = false;
  await Promise.all(streams);
  expect(waited).toBeGreaterThanOrEqual(BACKGROUND_MAX_WAIT_MS * 0.9);
  expect(waited).toBeLessThan(BACKGROUND_MAX_WAIT_MS * 3);
}, 20_000);
