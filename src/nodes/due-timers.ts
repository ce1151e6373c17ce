import type { Clock } from '../api/clock';

/**
 * Keys due at given times, on one timer: the earliest due time arms it, and each firing hands
 * every key then due to `fire` (thousands of pods, one pending timeout).
 */
export class DueTimers {
  private readonly due = new Map<string, number>();
  private disarm: (() => void) | null = null;
  private armedFor = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly fire: (key: string) => void,
  ) {}

  /** The key is due at `ms` (an earlier time than one it has wins). */
  at(key: string, ms: number): void {
    const current = this.due.get(key);
    if (current !== undefined && current <= ms) return;
    this.due.set(key, ms);
    if (ms < this.armedFor) this.arm(ms);
  }

  cancel(key: string): void {
    this.due.delete(key);
  }

  clear(): void {
    this.due.clear();
    this.disarm?.();
    this.disarm = null;
    this.armedFor = Infinity;
  }

  private arm(ms: number): void {
    this.disarm?.();
    this.armedFor = ms;
    this.disarm = this.clock.after(Math.max(0, ms - this.clock.now()), () => this.tick());
  }

  private tick(): void {
    this.disarm = null;
    this.armedFor = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    const fired: string[] = [];
    for (const [key, ms] of this.due) {
      if (ms <= now) fired.push(key);
      else next = Math.min(next, ms);
    }
    for (const key of fired) this.due.delete(key);
    if (next < Infinity) this.arm(next);
    for (const key of fired) this.fire(key);
  }
}
