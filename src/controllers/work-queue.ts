/**
 * Keys a controller still has to handle, handled one pass at a time. A key added while a pass runs
 * asks for another pass right after it; a key whose handling failed, or is not finished yet, is
 * tried again after a pause.
 */
export class WorkQueue {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private draining = false;
  private again = false;
  private stopped = false;

  constructor(
    /** Resolves true once the key needs nothing more, false to be tried again later. */
    private readonly handle: (key: string) => Promise<boolean>,
    private readonly onError: (key: string, err: unknown) => void,
    private readonly retryMs = 1000,
  ) {}

  add(key: string): void {
    this.pending.add(key);
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.draining && delayMs === 0) this.again = true;
    if (this.timer || this.draining || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, delayMs);
  }

  private async drain(): Promise<void> {
    this.draining = true;
    this.again = false;
    const retry = new Set<string>();
    for (const key of [...this.pending]) {
      if (this.stopped) break;
      this.pending.delete(key);
      try {
        if (!(await this.handle(key))) retry.add(key);
      } catch (err) {
        this.onError(key, err);
        retry.add(key);
      }
    }
    this.draining = false;
    const rerun = this.again;
    for (const key of retry) this.pending.add(key);
    if (rerun) this.schedule(0);
    else if (this.pending.size > 0) this.schedule(this.retryMs);
  }
}
