import { onAbort, type CallSignal } from './request-abort';
/**
 * Time as the server sees it (the watch cache, the etcd client, controllers): injected, so that
 * tests can move it by hand.
 */
export interface Clock {
  now(): number;
  /**
   * Runs `fn` after `ms`; the returned function cancels it. A timer keeps the process alive only
   * with `keepAlive`: a wait some work is blocked on (a retry's backoff, a read waiting for the
   * cache), not a background tick.
   */
  after(ms: number, fn: () => void, keepAlive?: boolean): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after: (ms, fn, keepAlive = false) => {
    const timer = setTimeout(fn, ms);
    if (!keepAlive) timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Runs `fn` every `ms` until the returned function is called. */
export function every(clock: Clock, ms: number, fn: () => void): () => void {
  let cancel = clock.after(ms, tick);
  let stopped = false;
  function tick(): void {
    if (stopped) return;
    cancel = clock.after(ms, tick);
    fn();
  }
  return () => {
    stopped = true;
    cancel();
  };
}

/** Resolves after `ms` on the clock, or at once when `signal` ends the wait. */
export function sleep(clock: Clock, ms: number, signal?: CallSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const cancel = clock.after(
      ms,
      () => {
        stopListening?.();
        resolve();
      },
      true,
    );
    const stopListening = signal
      ? onAbort(signal, () => {
          cancel();
          resolve();
        })
      : undefined;
  });
}

/** A clock that moves only when told to, for unit tests of timing logic. */
export class ManualClock implements Clock {
  private time: number;
  private readonly timers = new Set<{ at: number; fn: () => void }>();

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + Math.max(0, ms), fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /** Moves time forward, firing due timers in order and letting the promises they settle run. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await flushMicrotasks();
      const due = [...this.timers].filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.delete(due);
      this.time = Math.max(this.time, due.at);
      due.fn();
    }
    this.time = end;
    await flushMicrotasks();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}
