import type { Clock } from '../runtime/clock';
import type { WorkQueue } from '../work-queue';

/** The work queue's AddAfter: a key comes back after a delay; of several pending delays the earliest wins. */
export class DelayedAdds {
  private readonly pending = new Map<string, { due: number; cancel: () => void }>();

  constructor(
    private readonly queue: WorkQueue,
    private readonly clock: Clock,
  ) {}

  addAfter(key: string, ms: number): void {
    const due = this.clock.now() + ms;
    const current = this.pending.get(key);
    if (current && current.due <= due) return;
    current?.cancel();
    const cancel = this.clock.after(ms, () => {
      this.pending.delete(key);
      this.queue.add(key);
    });
    this.pending.set(key, { due, cancel });
  }

  stop(): void {
    for (const { cancel } of this.pending.values()) cancel();
    this.pending.clear();
  }
}
