import type { Clock } from './clock';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Each delay grows by up to this fraction of itself, at random. */
  jitter: number;
  /** A delay asked for this long after the previous one starts over from `initialMs`. */
  resetAfterMs: number;
}

/** The reflector's: NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0) in client-go's reflector.go. */
export const REFLECTOR_BACKOFF: BackoffOptions = { initialMs: 800, maxMs: 30_000, factor: 2, jitter: 1, resetAfterMs: 120_000 };

/** Exponential backoff that forgets its history after a quiet period, as apimachinery's backoff manager. */
export class Backoff {
  private current = 0;
  private lastAt = -Infinity;

  constructor(
    private readonly opts: BackoffOptions,
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const now = this.clock.now();
    if (now - this.lastAt > this.opts.resetAfterMs) this.current = 0;
    this.lastAt = now;
    this.current = this.current === 0 ? this.opts.initialMs : Math.min(this.opts.maxMs, this.current * this.opts.factor);
    return Math.round(this.current * (1 + this.random() * this.opts.jitter));
  }
}
