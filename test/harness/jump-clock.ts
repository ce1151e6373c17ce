import type { Clock } from '../../src/api/clock';

interface Timer {
  at: number;
  fn: () => void;
  keepAlive: boolean;
  handle: NodeJS.Timeout | null;
}

/**
 * A clock that runs as the system's does (timers fire on their own, so work queues and informers
 * behave as in production) but that a test can move forward at once: `jump` fires every timer the
 * jump makes due, in order. For a server in this process given it as `controllerClock`, so that a
 * CronJob's next schedule time comes when the test says.
 */
export class JumpClock implements Clock {
  private offsetMs = 0;
  private readonly timers = new Set<Timer>();

  now(): number {
    return Date.now() + this.offsetMs;
  }

  after(ms: number, fn: () => void, keepAlive = false): () => void {
    const timer: Timer = { at: this.now() + Math.max(0, ms), fn, keepAlive, handle: null };
    this.timers.add(timer);
    this.arm(timer);
    return () => {
      if (timer.handle) clearTimeout(timer.handle);
      this.timers.delete(timer);
    };
  }

  /** Moves time forward by `ms`: timers now due fire in the order of their times, the rest are re-armed for the new time. */
  jump(ms: number): void {
    this.offsetMs += ms;
    const due = [...this.timers].filter((t) => t.at <= this.now()).sort((a, b) => a.at - b.at);
    for (const timer of this.timers) if (!due.includes(timer)) this.arm(timer);
    for (const timer of due) {
      if (timer.handle) clearTimeout(timer.handle);
      this.timers.delete(timer);
      timer.fn();
    }
  }

  private arm(timer: Timer): void {
    if (timer.handle) clearTimeout(timer.handle);
    timer.handle = setTimeout(
      () => {
        this.timers.delete(timer);
        timer.fn();
      },
      Math.max(0, timer.at - this.now()),
    );
    if (!timer.keepAlive) timer.handle.unref();
  }
}
