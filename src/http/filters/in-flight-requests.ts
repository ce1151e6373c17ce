import type { ServerResponse } from 'node:http';

interface Entry {
  res: ServerResponse;
  longRunning: boolean;
  /** Ends the request early: a watch closes its stream cleanly. */
  end(): void;
}

/**
 * The requests being served, for a graceful shutdown: once draining, responses close their
 * connection, long-running requests are ended cleanly, and the rest may finish.
 */
export class InFlightRequests {
  private readonly entries = new Set<Entry>();
  private waiters: (() => void)[] = [];
  private isDraining = false;

  get draining(): boolean {
    return this.isDraining;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Tracks a request until its response closes; one arriving while draining closes its connection after it. */
  add(res: ServerResponse, longRunning: boolean, end: () => void): void {
    const entry: Entry = { res, longRunning, end };
    this.entries.add(entry);
    res.once('close', () => {
      this.entries.delete(entry);
      if (this.entries.size === 0) for (const wake of this.waiters.splice(0)) wake();
    });
    if (this.isDraining) this.release(entry);
  }

  /** Resolves true once every request has finished, false when `timeoutMs` passed first. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.isDraining = true;
    for (const entry of this.entries) this.release(entry);
    if (this.entries.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      new Promise<boolean>((resolve) => this.waiters.push(() => resolve(true))),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return finished;
  }

  private release(entry: Entry): void {
    if (!entry.res.headersSent) entry.res.setHeader('Connection', 'close');
    if (entry.longRunning) entry.end();
  }
}
