import type { Controller } from './controller';
import { systemClock, type Clock } from './clock';
import type { ControllerLog } from './informer';

/** How soon a failed pass is tried again (at most the interval). */
const RETRY_AFTER_FAILURE_MS = 2000;

/**
 * A controller that does one pass at start (awaited) and then one every interval, as kube's
 * wait.Until loops (the repair controllers, the endpoint reconciler). A failed pass is logged,
 * reported as its problem until one succeeds, and tried again soon.
 */
export abstract class PeriodicController implements Controller {
  abstract readonly name: string;
  private cancel: (() => void) | null = null;
  private running = false;
  private failure: string | null = null;

  constructor(
    private readonly intervalMs: number,
    protected readonly log: ControllerLog,
    private readonly clock: Clock = systemClock,
  ) {}

  /** One pass; throws when it could not do its work. */
  protected abstract pass(): Promise<void>;

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.runPass();
    this.schedule();
  }

  stop(): void {
    this.running = false;
    this.cancel?.();
    this.cancel = null;
  }

  problem(): string | null {
    return this.failure;
  }

  private async runPass(): Promise<void> {
    try {
      await this.pass();
      this.failure = null;
    } catch (err) {
      this.failure = `${this.name}: ${err instanceof Error ? err.message : String(err)}`;
      this.log(`${this.name} failed`, err);
    }
  }

  private schedule(): void {
    if (!this.running) return;
    const wait = this.failure ? Math.min(this.intervalMs, RETRY_AFTER_FAILURE_MS) : this.intervalMs;
    this.cancel = this.clock.after(wait, () => {
      void this.runPass().finally(() => this.schedule());
    });
  }
}
