import type { WorkQueue } from '../work-queue';
import type { Informer } from './informer';

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
export function informerAndQueueProblem(informers: Iterable<Informer>, queue: WorkQueue | null): string | null {
  for (const informer of informers) {
    const problem = informer.problem();
    if (problem) return problem;
  }
  const stuck = queue?.stuckLongerThan(STUCK_AFTER_MS);
  return stuck ? `worker stuck on ${stuck.key} for ${Math.round(stuck.forMs / 1000)}s` : null;
}
