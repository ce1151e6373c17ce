import type { Clock } from '../controllers/runtime/clock';

/** The default profile's podInitialBackoffSeconds and podMaxBackoffSeconds. */
const INITIAL_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 10_000;
/** podMaxInUnschedulablePodsDuration: an unschedulable pod is retried at least this often. */
export const MAX_UNSCHEDULABLE_MS = 5 * 60_000;

interface Entry {
  key: string;
  priority: number;
  /** When the pod entered the queue (PrioritySort's tie-break). */
  since: number;
  attempts: number;
  /** When the pod last came out of a failed attempt. */
  failedAt: number;
  /** The move-request counter when the attempt that failed began. */
  cycle: number;
}

/**
 * kube-scheduler's PriorityQueue: activeQ (highest priority first, then the longest waiting),
 * backoffQ (a failed pod waits 1s, doubling to 10s, before it is tried again) and the
 * unschedulable pods, which a cluster change (a node added or changed, a pod gone) moves back to
 * be tried (through backoff while theirs lasts). A change during a pod's attempt sends that pod to
 * backoff rather than to the unschedulable pods, so it is not missed.
 */
export class SchedulingQueue {
  private readonly active = new Map<string, Entry>();
  private readonly backoff = new Map<string, Entry>();
  private readonly unschedulable = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Entry>();
  private moveCycle = 0;
  private timer: (() => void) | null = null;

  constructor(
    private readonly clock: Clock,
    /** Called whenever a pod becomes ready to be tried. */
    private readonly wake: () => void,
  ) {}

  /** A pod to schedule, new or changed: straight to activeQ unless it is waiting out a backoff. */
  add(key: string, priority: number): void {
    if (this.inFlight.has(key) || this.active.has(key) || this.backoff.has(key)) return;
    const parked = this.unschedulable.get(key);
    if (parked) {
      this.unschedulable.delete(key);
      this.requeue(parked);
      return;
    }
    this.active.set(key, { key, priority, since: this.clock.now(), attempts: 0, failedAt: 0, cycle: 0 });
    this.wake();
  }

  delete(key: string): void {
    this.active.delete(key);
    this.backoff.delete(key);
    this.unschedulable.delete(key);
    this.inFlight.delete(key);
  }

  /** The next pod to try, or null. */
  pop(): string | null {
    let best: Entry | null = null;
    for (const e of this.active.values()) if (!best || e.priority > best.priority || (e.priority === best.priority && e.since < best.since)) best = e;
    if (!best) return null;
    this.active.delete(best.key);
    best.cycle = this.moveCycle;
    this.inFlight.set(best.key, best);
    return best.key;
  }

  /** The attempt found no node (or its binding failed): parked until the cluster changes, or backed off if it changed meanwhile. */
  failed(key: string, unschedulable: boolean): void {
    const e = this.inFlight.get(key);
    if (!e) return;
    this.inFlight.delete(key);
    e.attempts++;
    e.failedAt = this.clock.now();
    if (unschedulable && e.cycle >= this.moveCycle) this.unschedulable.set(key, e);
    else this.toBackoff(e);
  }

  /** The attempt ended with the pod bound (or no longer to be scheduled). */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /** MoveAllToActiveOrBackoffQueue, on a cluster change that may make room. */
  moveAll(): void {
    this.moveCycle++;
    const parked = [...this.unschedulable.values()];
    this.unschedulable.clear();
    for (const e of parked) this.requeue(e);
  }

  /** flushUnschedulablePodsLeftover: pods parked longer than five minutes are tried again. */
  flushLeftover(): void {
    const now = this.clock.now();
    for (const e of [...this.unschedulable.values()]) {
      if (now - e.failedAt < MAX_UNSCHEDULABLE_MS) continue;
      this.unschedulable.delete(e.key);
      this.requeue(e);
    }
  }

  stop(): void {
    this.timer?.();
    this.timer = null;
  }

  private backoffMs(e: Entry): number {
    return Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** Math.max(0, e.attempts - 1));
  }

  private requeue(e: Entry): void {
    if (this.clock.now() < e.failedAt + this.backoffMs(e)) this.toBackoff(e);
    else {
      this.active.set(e.key, e);
      this.wake();
    }
  }

  private toBackoff(e: Entry): void {
    this.backoff.set(e.key, e);
    this.armTimer();
  }

  /** One timer for the earliest backoff to end. */
  private armTimer(): void {
    this.timer?.();
    let next = Infinity;
    for (const e of this.backoff.values()) next = Math.min(next, e.failedAt + this.backoffMs(e));
    if (next === Infinity) {
      this.timer = null;
      return;
    }
    this.timer = this.clock.after(Math.max(0, next - this.clock.now()), () => {
      this.timer = null;
      const now = this.clock.now();
      for (const e of [...this.backoff.values()]) {
        if (now < e.failedAt + this.backoffMs(e)) continue;
        this.backoff.delete(e.key);
        this.active.set(e.key, e);
      }
      this.armTimer();
      this.wake();
    });
  }
}
