import type { StorageEvent } from '../interfaces';

/**
 * The recent history of one resource: every event after `start` is kept, for at most `historyMs`
 * and `maxEvents`. A watch from revision N can be served from here when N >= start.
 */
export class EventWindow {
  private events: { event: StorageEvent; at: number }[] = [];
  private head = 0;
  /** Events with a revision above this are all retained. */
  private startRevision: number;

  constructor(
    start: number,
    private readonly historyMs: number,
    private readonly maxEvents: number,
    private readonly now: () => number,
  ) {
    this.startRevision = start;
  }

  get start(): number {
    return this.startRevision;
  }

  get size(): number {
    return this.events.length - this.head;
  }

  add(event: StorageEvent): void {
    this.events.push({ event, at: this.now() });
    this.evict();
  }

  /** Drops what is older than the history or beyond the size bound. */
  evict(): void {
    const cutoff = this.now() - this.historyMs;
    const before = this.head;
    while (this.head < this.events.length && (this.size > this.maxEvents || this.events[this.head].at < cutoff)) {
      this.startRevision = this.events[this.head].event.revision;
      this.head++;
    }
    // As kube's getAllEventsSinceLocked once events were dropped: the oldest held event's revision
    // less one bounds what can be resumed (nothing of this resource happened in between).
    if (this.head !== before && this.head < this.events.length) this.startRevision = Math.max(this.startRevision, this.events[this.head].event.revision - 1);
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** History at or below `revision` is gone from etcd: resuming from there must fail here too. */
  truncate(revision: number): void {
    while (this.head < this.events.length && this.events[this.head].event.revision <= revision) this.head++;
    if (revision > this.startRevision) this.startRevision = revision;
  }

  /** Events after `revision`, oldest first; null when some of them are no longer held. */
  since(revision: number): StorageEvent[] | null {
    if (revision < this.startRevision) return null;
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].event.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo).map((e) => e.event);
  }
}
