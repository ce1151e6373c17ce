import { systemClock, type Clock } from './runtime/clock';
import { yieldToRequests } from './runtime/turn-budget';

/**
 * Keys a controller still has to handle, handled one pass at a time. A key added while a pass runs
 * asks for another pass right after it; a key whose handling failed, or is not finished yet, is
 * tried again after a pause.
 */
export class WorkQueue {
  private readonly pending = new Set<string>();
  private cancelTimer: (() => void) | null = null;
  private timerDue = 0;
  private draining = false;
  private again = false;
  private stopped = false;
  /** The key being handled and since when, to tell a stuck handler from a busy one. */
  private current: { key: string; since: number } | null = null;

  constructor(
    /** Resolves true once the key needs nothing more, false to be tried again later. */
    private readonly handle: (key: string) => Promise<boolean>,
    private readonly onError: (key: string, err: unknown) => void,
    private readonly retryMs = 1000,
    private readonly clock: Clock = systemClock,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    this.schedule(0);
  }

  /** Stops handling keys; adds are ignored until start(). */
  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
  }

  /**
   * Handles keys again after stop(): a leader-only controller stops when its replica loses the
   * lease and starts again when it wins it back (kapi serves on meanwhile, where
   * kube-controller-manager would exit). Keys left from before are handled first.
   */
  start(): void {
    this.stopped = false;
    if (this.pending.size > 0) this.schedule(0);
  }

  get length(): number {
    return this.pending.size;
  }

  /** The key whose handling has run longer than `ms`, if any. */
  stuckLongerThan(ms: number): { key: string; forMs: number } | null {
    if (!this.current) return null;
    const forMs = this.clock.now() - this.current.since;
    return forMs > ms ? { key: this.current.key, forMs } : null;
  }

  private schedule(delayMs: number): void {
    if (this.draining && delayMs === 0) this.again = true;
    if (this.draining || this.stopped) return;
    const due = this.clock.now() + delayMs;
    if (this.cancelTimer) {
      // A new key does not wait for the retry pause of earlier ones.
      if (this.timerDue <= due) return;
      this.cancelTimer();
    }
    this.timerDue = due;
    this.cancelTimer = this.clock.after(delayMs, () => {
      this.cancelTimer = null;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    this.again = false;
    const retry = new Set<string>();
    for (const key of [...this.pending]) {
      await yieldToRequests();
      if (this.stopped) break;
      this.pending.delete(key);
      this.current = { key, since: this.clock.now() };
      try {
        if (!(await this.handle(key))) retry.add(key);
      } catch (err) {
        this.onError(key, err);
        retry.add(key);
      } finally {
        this.current = null;
      }
    }
    this.draining = false;
    const rerun = this.again;
    for (const key of retry) this.pending.add(key);
    if (rerun) this.schedule(0);
    else if (this.pending.size > 0) this.schedule(this.retryMs);
  }
}
