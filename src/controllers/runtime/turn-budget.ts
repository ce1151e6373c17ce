import { performance } from 'node:perf_hooks';

/**
 * Internal work (controllers, the scheduler, simulated kubelets) runs on the event loop that
 * serves users' requests. Where kube gives its control plane's clients their own processes, rate
 * limits and priority levels, here internal work takes turns: each iteration of the loop gives it
 * about this much time, after which the rest waits, in order, for the loop's next poll for I/O. A
 * request's callbacks then wait behind about one budget of internal work instead of behind every
 * internal continuation that is ready.
 */
export const TURN_BUDGET_MS = 4;
/**
 * The budget while a server answers a client (`serveFirst`). A request's own steps that wait for
 * the loop (its etcd read, sent from a check-phase callback; its answer from etcd, read at the next
 * poll) then wait behind about this much internal work per iteration; the turn's first item still
 * runs, so internal work goes on under a steady stream of requests, as APF's levels each keep a share.
 */
export const SERVING_TURN_BUDGET_MS = 1;

/** Each running server's answer to: is a client's (not long-running) request in flight? */
const servers = new Set<() => boolean>();

/** Registers a server's check for clients' requests in flight; the returned function removes it. */
export function serveFirst(answering: () => boolean): () => void {
  servers.add(answering);
  return () => servers.delete(answering);
}

function answeringClient(): boolean {
  for (const answering of servers) if (answering()) return true;
  return false;
}

function budgetMs(): number {
  return answeringClient() ? SERVING_TURN_BUDGET_MS : TURN_BUDGET_MS;
}

/**
 * The share of wall time the loop may be busy before internal work is paced. A loop busy all the
 * time keeps the process on a core: etcd, which every request of the server waits for, and the
 * clients then queue for the CPU as much as for the loop. Past this share, a turn is one item and
 * the next turn waits PACE_MS, so the loop polls with a timeout and the process gives its core up;
 * kube's controllers are held back the same way by their clients' QPS limits.
 */
export const LOOP_SHARE = 0.85;
/** The loop's busy share is measured over the last one to two of these. */
const SHARE_WINDOW_MS = 100;
const PACE_MS = 2;

let shareBase = { at: performance.now(), elu: performance.eventLoopUtilization() };
let shareNext = shareBase;

/** Whether the loop has been busy more than LOOP_SHARE of the time lately. */
function overShare(now: number): boolean {
  if (now - shareNext.at >= SHARE_WINDOW_MS) {
    shareBase = shareNext;
    shareNext = { at: now, elu: performance.eventLoopUtilization() };
  }
  return performance.eventLoopUtilization(shareBase.elu).utilization > LOOP_SHARE;
}

/** When the current turn of internal work began; null: none has run since the last poll for I/O. */
let turnStart: number | null = null;
let endOfTurnQueued = false;
/** Internal work waiting for a turn, first come first served. */
const waiting: Array<() => void> = [];
/**
 * Background work (Events) waiting for a turn: it runs when no other internal work waits, or once
 * it has waited BACKGROUND_MAX_WAIT_MS. kube's event broadcaster writes from a queue of its own,
 * behind the work it reports, and drops events when that queue is full; here they wait instead.
 */
const background: Array<{ resume: () => void; since: number }> = [];
export const BACKGROUND_MAX_WAIT_MS = 1000;

const anyWaiting = (): boolean => waiting.length > 0 || background.length > 0;

/** The next waiting work to resume: background work only when nothing else waits or it has waited too long. */
function takeNext(now: number): () => void {
  if (background.length > 0 && (waiting.length === 0 || now - background[0].since >= BACKGROUND_MAX_WAIT_MS)) return background.shift()!.resume;
  return waiting.shift()!;
}
/** Turn slots queued (setImmediate callbacks) and not yet run. */
let armed = 0;
/** A paced turn's pause is running: the next turn is armed when it ends. */
let pausing = false;
/** At most this many slots are queued per turn: work beyond them waits for the next. */
const MAX_SLOTS = 64;

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
    if (overShare(now)) return false;
    startTurn(now);
    return true;
  }
  return now - turnStart < budgetMs();
}

/**
 * Queues the next turn's slots. Each slot is its own check-phase callback, and Node runs the
 * microtasks of one before the next, so a slot sees the time the work resumed before it took.
 */
function armSlots(): void {
  const turn = { start: -1, paced: false };
  const n = Math.min(waiting.length + background.length, MAX_SLOTS);
  armed += n;
  for (let i = 0; i < n; i++) setImmediate(() => slot(turn));
}

/**
 * Resumes the longest waiting work while the turn's budget lasts; the turn's first slot always
 * does. A turn begun while the loop is over its share resumes only that one, then pauses.
 */
function slot(turn: { start: number; paced: boolean }): void {
  armed--;
  if (anyWaiting()) {
    const now = performance.now();
    if (turn.start < 0) {
      turn.start = now;
      turn.paced = overShare(now);
      startTurn(now);
      takeNext(now)();
    } else if (!turn.paced && now - turn.start < budgetMs()) {
      takeNext(now)();
    }
  }
  if (armed === 0 && anyWaiting()) {
    if (!turn.paced) {
      armSlots();
      return;
    }
    pausing = true;
    setTimeout(() => {
      pausing = false;
      if (anyWaiting() && armed === 0) armSlots();
    }, PACE_MS);
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
    if (armed === 0 && !pausing) armSlots();
  });
}

/** yieldToRequests for background work: it also gives way to all other internal work waiting (for at most BACKGROUND_MAX_WAIT_MS). */
export function yieldToBackground(): Promise<void> {
  if (!anyWaiting() && budgetLeft()) return Promise.resolve();
  return new Promise((resolve) => {
    background.push({ resume: resolve, since: performance.now() });
    if (armed === 0 && !pausing) armSlots();
  });
}
