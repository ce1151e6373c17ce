import type { WorkQueue } from '../work-queue';
import type { CachedInformer } from './informer';

/** An in-process controller as the controller manager runs it. */
export interface Controller {
  /** Its health check's name, as kube-controller-manager names its controllers (e.g. namespace-controller). */
  readonly name: string;
  /** Starts its informers and workers; resolves once the informers have synced. */
  start(): Promise<void>;
  stop(): void;
  /** Why it cannot do its work now (a lost watch, a stuck worker), or null. */
  problem(): string | null;
}

/** A worker busy with one key for this long is reported stuck. */
export const STUCK_AFTER_MS = 60_000;

/** The usual health of a controller built from informers and a queue. */
export function informerAndQueueProblem(informers: Iterable<CachedInformer>, queue: WorkQueue | null): string | null {
  for (const informer of informers) {
    const problem = informer.problem();
    if (problem) return problem;
  }
  const stuck = queue?.stuckLongerThan(STUCK_AFTER_MS);
  return stuck ? `worker stuck on ${stuck.key} for ${Math.round(stuck.forMs / 1000)}s` : null;
}

/**
 * A controller made of informers feeding one work queue, as most of kube-controller-manager's are:
 * its informers start in order, each synced before the next (a later one's handlers may read an
 * earlier one's cache), and stop in reverse; their health and the queue's are its problem.
 */
export abstract class QueueController implements Controller {
  abstract readonly name: string;
  /** The informers, in the order they start. */
  protected abstract get informers(): CachedInformer[];
  protected abstract readonly queue: WorkQueue;

  async start(): Promise<void> {
    this.queue.start();
    for (const informer of this.informers) {
      informer.start();
      await informer.waitForSync();
    }
    this.synced();
  }

  /** Runs once every informer has synced (a first pass over what is there, say). */
  protected synced(): void {}

  stop(): void {
    for (const informer of [...this.informers].reverse()) informer.stop();
    this.queue.stop();
  }

  problem(): string | null {
    return informerAndQueueProblem(this.informers, this.queue);
  }
}
