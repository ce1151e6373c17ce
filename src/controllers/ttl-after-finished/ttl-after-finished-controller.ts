import type { ObjectStore } from '../../registry/types';
import { isStatusError } from '../../api/errors';
import type { Job } from '../../generated/types/batch/v1';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { expiryOf, needsCleanup, type Expiry } from './job-ttl';
import { systemReadContext } from '../../registry/request-context';

const RETRY_MS = 1000;
const FRESH = { resourceVersion: '', match: '' } as const;

/**
 * kube-controller-manager's ttl-after-finished controller (pkg/controller/ttlafterfinished): a
 * finished Job with ttlSecondsAfterFinished is deleted, with Background propagation so its pods
 * go too, once that many seconds have passed since it finished. The Job is read again from
 * storage before the deletion, which is conditional on the resourceVersion read: a Job whose TTL
 * was changed meanwhile is not deleted early.
 */
export class TtlAfterFinishedController extends QueueController {
  readonly name = 'ttl-after-finished-controller';
  protected readonly queue: WorkQueue;
  private readonly jobInformer: CachedInformer;
  private readonly jobs: ObjectStore;
  /** enqueueAfter: the wake-up of each Job not due yet. */
  private readonly wakeUps = new Map<string, () => void>();

  constructor(private readonly deps: ControllerDeps) {
    super();
    this.jobs = deps.store('batch', 'v1', 'jobs');
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.log(`ttl-after-finished controller: job ${key} failed`, err),
      RETRY_MS,
      deps.clock,
    );
    const changed = (job: Job): void => {
      if (!job.metadata.deletionTimestamp && needsCleanup(job)) this.queue.add(objectKey(job));
    };
    this.jobInformer = deps.informers.informer(this.jobs, { added: changed, updated: (_, job) => changed(job) }, { name: 'jobs' });
  }

  protected get informers(): CachedInformer[] {
    return [this.jobInformer];
  }

  override stop(): void {
    super.stop();
    for (const cancel of this.wakeUps.values()) cancel();
    this.wakeUps.clear();
  }

  private async sync(key: string): Promise<boolean> {
    this.wakeUps.get(key)?.();
    this.wakeUps.delete(key);
    const cached = this.jobInformer.get(key) as Job | undefined;
    if (!cached || !this.expired(key, expiryOf(cached, this.deps.clock.now()))) return true;
    // The cache may be behind: the TTL is checked again on the Job as stored now.
    const fresh = (await this.jobs.find(systemReadContext(cached.metadata.namespace!), cached.metadata.name!, FRESH)) as Job | null;
    if (!fresh || !this.expired(key, expiryOf(fresh, this.deps.clock.now()))) return true;
    try {
      await this.jobs.delete(this.deps.admitted(fresh.metadata.namespace!), fresh.metadata.name!, {
        dryRun: false,
        propagationPolicy: 'Background',
        preconditions: { resourceVersion: fresh.metadata.resourceVersion },
      });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return true;
      throw err;
    }
    return true;
  }

  /** True when the Job is due now; a Job due later is looked at again then. */
  private expired(key: string, expiry: Expiry): boolean {
    if (expiry.kind === 'none') return false;
    if (expiry.kind === 'error') throw new Error(expiry.message);
    if (expiry.finishedInFuture) {
      this.deps.log(`Warning: Found Job ${key} finished in the future. This is likely due to time skew in the cluster. Job cleanup will be deferred.`);
    }
    const leftMs = expiry.ms - this.deps.clock.now();
    if (leftMs <= 0) return true;
    this.wakeUps.set(
      key,
      this.deps.clock.after(leftMs, () => {
        this.wakeUps.delete(key);
        this.queue.add(key);
      }),
    );
    return false;
  }
}
