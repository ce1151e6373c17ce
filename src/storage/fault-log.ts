/** Where a fault log writes: a message and, for failures, the error's text (never its stack). */
export type FaultLogSink = (message: string, err?: unknown) => void;

const FIRST_REPEAT_MS = 10_000;
const MAX_REPEAT_MS = 5 * 60_000;

/**
 * Logs one condition (e.g. "etcd member X unreachable") by its changes of state: the first failure
 * and the recovery are logged once; failures in between are counted and reported at growing
 * intervals (10 s, doubling to 5 min), so a fault that lasts never floods the log.
 */
export class FaultLog {
  private failing = false;
  private since = 0;
  private suppressed = 0;
  private nextReportAt = 0;
  private interval = FIRST_REPEAT_MS;

  constructor(
    private readonly sink: FaultLogSink,
    private readonly subject: string,
    private readonly now: () => number = Date.now,
  ) {}

  get isFailing(): boolean {
    return this.failing;
  }

  failed(detail: string): void {
    const now = this.now();
    if (!this.failing) {
      this.failing = true;
      this.since = now;
      this.suppressed = 0;
      this.interval = FIRST_REPEAT_MS;
      this.nextReportAt = now + this.interval;
      this.sink(`${this.subject}`, detail);
      return;
    }
    this.suppressed++;
    if (now < this.nextReportAt) return;
    this.sink(`${this.subject} (still, for ${Math.round((now - this.since) / 1000)}s; ${this.suppressed} more failures)`, detail);
    this.suppressed = 0;
    this.interval = Math.min(this.interval * 2, MAX_REPEAT_MS);
    this.nextReportAt = now + this.interval;
  }

  recovered(message: string): void {
    if (!this.failing) return;
    this.failing = false;
    this.sink(`${message} after ${Math.round((this.now() - this.since) / 1000)}s`);
  }
}
