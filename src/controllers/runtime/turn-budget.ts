import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Internal work (controllers, the scheduler, simulated kubelets) runs on the event loop that
 * serves users' requests. Where kube gives its control plane's clients their own processes, rate
 * limits and priority levels, here internal work takes turns: each iteration of the loop gives it
 * about this much time, after which the rest waits, in order, for the loop's next poll for I/O. A
 * request's callbacks then wait behind about one budget of internal work instead of behind every
 * internal continuation that is ready.
 */
export const TURN_BUDGET_MS = 4;

/** When the current turn of internal work began; null: none has run since the last poll for I/O. */
let turnStart: number | null = null;
let endOfTurnQueued = false;
/** Internal work waiting for a turn, first come first served. */
const waiting: Array<() => void> = [];
let pumping = false;

function startTurn(now: number): void {
  turnStart = now;
  if (endOfTurnQueued) return;
  endOfTurnQueued = true;
  // Check-phase callbacks run after the poll for I/O: internal work from there on is a new turn.
  setImmediate(() => {
    endOfTurnQueued = false;
    turnStart = null;
  });
}

function budgetLeft(): boolean {
  const now = performance.now();
  if (turnStart === null) {
    startTurn(now);
    return true;
  }
  return now - turnStart < TURN_BUDGET_MS;
}

/** Each turn (after a poll for I/O), resumes waiting work one at a time while the turn's budget lasts. */
async function pump(): Promise<void> {
  pumping = true;
  try {
    while (waiting.length > 0) {
      await nextTurn();
      const start = performance.now();
      startTurn(start);
      while (waiting.length > 0 && performance.now() - start < TURN_BUDGET_MS) {
        waiting.shift()!();
        // The resumed work's synchronous part runs before the budget is looked at again.
        await Promise.resolve();
      }
    }
  } finally {
    pumping = false;
  }
}

/**
 * Called by internal work before each item it handles: resolves at once while the current turn's
 * budget lasts and nothing waits, else once a later turn reaches it.
 */
export function yieldToRequests(): Promise<void> {
  if (waiting.length === 0 && budgetLeft()) return Promise.resolve();
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) void pump();
  });
}
