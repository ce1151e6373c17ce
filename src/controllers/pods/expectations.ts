import type { Clock } from '../runtime/clock';

/** controller.ExpectationsTimeout: expectations older than this are given up on, so a lost watch event cannot stall a controller. */
const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Expectation {
  add: number;
  del: number;
  at: number;
}

/**
 * controller.ControllerExpectations: how many creations and deletions a controller is still
 * waiting to see in its informer, per controller key, so that it does not act again on a cache
 * that does not yet show what it did.
 */
export class ControllerExpectations {
  private readonly byKey = new Map<string, Expectation>();

  constructor(private readonly clock: Clock) {}

  /** SatisfiedExpectations: nothing pending, none recorded, or recorded too long ago. */
  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.clock.now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  expectCreations(key: string, adds: number): void {
    this.byKey.set(key, { add: adds, del: 0, at: this.clock.now() });
  }

  expectDeletions(key: string, dels: number): void {
    this.byKey.set(key, { add: 0, del: dels, at: this.clock.now() });
  }

  /** LowerExpectations for creations that will never be observed (a failed or skipped create). */
  creationObserved(key: string, count = 1): void {
    const e = this.byKey.get(key);
    if (e) e.add -= count;
  }

  deletionObserved(key: string, count = 1): void {
    const e = this.byKey.get(key);
    if (e) e.del -= count;
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }
}
