/**
 * How long one request's synchronous work may hold the event loop before it lets others in
 * (issue 25: no request blocks the loop for more than 100 ms; a slice ends between stages, so
 * the budget leaves room for the stage that runs past it).
 */
export const SLICE_BUDGET_MS = 20;

/**
 * A request's points between stages of work (decode, merge, admission, field manager, encode):
 * each one yields to the event loop once the work since the last yield has run `budgetMs`, so a
 * small request never waits and a huge one is cut into slices that health checks, lease renewals
 * and watches can run between.
 */
export function loopSlices(budgetMs = SLICE_BUDGET_MS): () => Promise<void> {
  let since = performance.now();
  return () => {
    if (performance.now() - since < budgetMs) return GO_ON;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

/** What a point that does not yield answers: one settled promise, not one made per point (a write passes a dozen). */
const GO_ON: Promise<void> = Promise.resolve();

/** For work that is never large enough to slice. */
export const noSlices = (): Promise<void> => GO_ON;

/**
 * Work too large for one slice, kept as a stack of steps where a step may push more (a tree walk
 * without recursion): the caller that may not wait runs them all at once, a request runs them in
 * slices.
 */
export type Steps = (() => void)[];

/** How many steps run between two reads of the clock (a step is small; reading it is not free). */
const STEPS_PER_CHECK = 256;

export function runSteps(steps: Steps): void {
  for (let step = steps.pop(); step; step = steps.pop()) step();
}

export async function runStepsInSlices(steps: Steps, slice: () => Promise<void>): Promise<void> {
  let n = 0;
  for (let step = steps.pop(); step; step = steps.pop()) {
    step();
    if (++n % STEPS_PER_CHECK === 0) await slice();
  }
}

/**
 * Work written as a generator that yields between its pieces (a JSON patch's operations, a
 * list's items): the caller that may not wait runs it through, a request runs it in slices.
 */
export type Walk<T> = Generator<void, T, void>;

export function runWalk<T>(walk: Walk<T>): T {
  for (;;) {
    const next = walk.next();
    if (next.done) return next.value;
  }
}

export async function runWalkInSlices<T>(walk: Walk<T>, slice: () => Promise<void>): Promise<T> {
  for (;;) {
    const next = walk.next();
    if (next.done) return next.value;
    await slice();
  }
}
