import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { Job, JobStatus } from '../../generated/types/batch/v1';
import type { Pod } from '../../generated/types/core/v1';
import { timestampAt } from '../../registry/time';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { ControllerExpectations } from '../pods/expectations';
import { controllerRefOf, newControllerRef } from '../pods/controller-ref';
import { controllerUidIndexers, ownedBy } from '../pods/controller-uid-index';
import { PodControl, podFromTemplate } from '../pods/pod-control';
import { claimObjects } from '../pods/ref-manager';
import { selectorMatcher } from '../pods/selector';
import { assessJob, activeDeadlineRemainingMs, type JobAssessment } from './job-assessment';
import { NO_FAILURES, remainingBackoffMs, type BackoffRecord } from './job-backoff';
import { hasJobCondition, isJobFinished, jobCondition, withCondition } from './job-conditions';
import { JOB_TRACKING_FINALIZER, podGenerateName, podTemplateFor } from './job-pod-template';
import { podChanges } from './job-pod-changes';
import { formatIntervals } from './indexes';
import { setFinalizer } from '../runtime/finalizers';
import { systemReadContext } from '../../registry/request-context';

const RETRY_MS = 1000;
/** The most pods one sync creates (kube's MaxBatchSize for slow start is 500 per job sync). */
const MAX_CREATE_PER_SYNC = 500;
/** controller.SlowStartInitialBatchSize. */
const SLOW_START_INITIAL_BATCH = 1;
/** The spec.managedBy value that names this controller (and that an absent one means). */
const JOB_CONTROLLER_MANAGER = 'kubernetes.io/job-controller';

/**
 * kube-controller-manager's job controller (pkg/controller/job): keeps parallelism pods of a Job
 * running until its completions succeed or it fails (pod failure policy, backoff limits, deadline),
 * counting each finished pod exactly once through the batch.kubernetes.io/job-tracking finalizer and
 * status.uncountedTerminatedPods, and marking the outcome with SuccessCriteriaMet/FailureTarget and
 * then, once no pod is left running, Complete/Failed.
 */
export class JobController extends QueueController {
  readonly name = 'job-controller';
  protected readonly queue: WorkQueue;
  private readonly jobs: ObjectStore;
  private readonly pods: ObjectStore;
  private readonly jobInformer: CachedInformer;
  private readonly podInformer: CachedInformer;
  private readonly expectations: ControllerExpectations;
  private readonly podControl: PodControl;
  private readonly recorder: EventRecorder;
  /** podBackoffStore: failures since each job's last success, kept in memory as kube does. */
  private readonly backoffs = new Map<string, BackoffRecord>();
  private readonly wakeups = new Map<string, () => void>();

  constructor(private readonly deps: ControllerDeps) {
    super();
    this.jobs = deps.store('batch', 'v1', 'jobs');
    this.pods = deps.store('', 'v1', 'pods');
    this.recorder = deps.recorder('job-controller');
    this.expectations = new ControllerExpectations(deps.clock);
    this.podControl = new PodControl(this.pods, deps, this.recorder);
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.log(`job controller: job ${key} failed`, err),
      RETRY_MS,
      deps.clock,
    );
    const enqueue = (job: Job): void => this.queue.add(objectKey(job));
    this.jobInformer = deps.informers.informer(
      this.jobs,
      { added: enqueue, updated: (_, job) => enqueue(job), deleted: (job) => this.forget(objectKey(job)) },
      { name: 'jobs' },
    );
    this.podInformer = deps.informers.informer(
      this.pods,
      {
        added: (pod) => this.podChanged(pod, 'added'),
        updated: (old, pod) => {
          this.podChanged(pod, 'updated');
          if (controllerRefOf(old)?.uid !== controllerRefOf(pod)?.uid) this.podChanged(old, 'updated');
        },
        deleted: (pod) => this.podChanged(pod, 'deleted'),
      },
      { name: 'pods', indexers: controllerUidIndexers },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.podInformer, this.jobInformer];
  }

  override stop(): void {
    super.stop();
    for (const cancel of this.wakeups.values()) cancel();
    this.wakeups.clear();
  }

  private podChanged(pod: Pod, change: 'added' | 'updated' | 'deleted'): void {
    const ref = controllerRefOf(pod);
    if (ref?.kind !== 'Job') return;
    const key = `${pod.metadata.namespace}/${ref.name}`;
    if (change === 'added') this.expectations.creationObserved(key);
    if (change === 'deleted') this.expectations.deletionObserved(key);
    this.queue.add(key);
  }

  private forget(key: string): void {
    this.expectations.delete(key);
    this.backoffs.delete(key);
    this.wakeups.get(key)?.();
    this.wakeups.delete(key);
  }

  /** Syncs the job again after `ms` (a backoff or a deadline running out). */
  private wakeAfter(key: string, ms: number): void {
    this.wakeups.get(key)?.();
    this.wakeups.set(
      key,
      this.deps.clock.after(ms, () => {
        this.wakeups.delete(key);
        this.queue.add(key);
      }),
    );
  }

  /** getPodsForJob: the namespace's pods the job controls, orphans its selector matches adopted, strays released. */
  private async podsOf(job: Job): Promise<Pod[]> {
    const matches = selectorMatcher(job.spec?.selector);
    const candidates = ownedBy<Pod>(this.podInformer, job, true);
    const target = { store: this.pods, context: (namespace: string) => this.deps.admitted(namespace) };
    return claimObjects(
      job,
      newControllerRef(job, 'batch/v1', 'Job'),
      (pod) => matches(pod.metadata.labels),
      candidates,
      target,
      async () => {
        const fresh = (await this.jobs.get(systemReadContext(job.metadata.namespace!), job.metadata.name!, { resourceVersion: '', match: '' })) as Job;
        if (fresh.metadata.uid !== job.metadata.uid)
          throw new Error(`original Job ${job.metadata.namespace}/${job.metadata.name} is gone: got uid ${fresh.metadata.uid}, wanted ${job.metadata.uid}`);
        if (fresh.metadata.deletionTimestamp)
          throw new Error(`${job.metadata.namespace}/${job.metadata.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
      },
    );
  }

  private async sync(key: string): Promise<boolean> {
    try {
      return await this.syncJob(key);
    } catch (err) {
      if (isStatusError(err) && err.code === 409) return false;
      throw err;
    }
  }

  private async syncJob(key: string): Promise<boolean> {
    const job = this.jobInformer.get(key) as Job | undefined;
    await this.releaseOrphans(key, job);
    if (!job) {
      this.forget(key);
      return true;
    }
    // isManagedByJobController: a job another controller manages (spec.managedBy) is left to it.
    if ((job.spec?.managedBy ?? JOB_CONTROLLER_MANAGER) !== JOB_CONTROLLER_MANAGER) return true;
    const pods = await this.podsOf(job);
    const nowMs = this.deps.clock.now();
    if (isJobFinished(job)) {
      // A finished job lets go of every pod still holding its finalizer.
      await this.releasePods(pods.filter((p) => (p.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER)));
      return true;
    }
    const a = assessJob(job, pods, nowMs, this.backoffs.get(key) ?? NO_FAILURES);
    this.backoffs.set(key, a.backoff);
    const satisfied = this.expectations.satisfied(key);
    let removed = 0;
    if (satisfied && !job.metadata.deletionTimestamp) {
      const changes = podChanges(job, a, pods);
      removed = await this.deletePods(key, job, changes.remove);
      const wait = changes.create.length > 0 ? remainingBackoffMs(a.backoff, nowMs) : 0;
      if (wait > 0) this.wakeAfter(key, wait);
      else await this.createPods(key, job, changes.create, a);
    }
    let current = job;
    if (a.finishing.length > 0) {
      current = await this.writeStatus(current, this.status(current, a, nowMs, removed, false));
      await this.releasePods(a.finishing);
    }
    const status = this.status(current, a, nowMs, removed, true);
    current = await this.writeStatus(current, status);
    this.recordTransitions(job, current);
    const deadline = activeDeadlineRemainingMs(current, nowMs);
    if (deadline !== null && deadline > 0 && !isJobFinished(current)) this.wakeAfter(key, deadline);
    return true;
  }

  private async deletePods(key: string, job: Job, pods: Pod[]): Promise<number> {
    if (pods.length === 0) return 0;
    this.expectations.expectDeletions(key, pods.length);
    let removed = 0;
    await Promise.all(
      pods.map(async (pod) => {
        try {
          await this.podControl.deletePod(pod.metadata.namespace!, pod.metadata.name!, job);
          removed++;
        } catch (err) {
          this.expectations.deletionObserved(key);
          if (!(isStatusError(err) && err.code === 404)) throw err;
        }
      }),
    );
    return removed;
  }

  /** Creates the pods in slow-start batches (1, 2, 4, ...): a template that fails does so once, not for every pod. */
  private async createPods(key: string, job: Job, indexes: (number | null)[], a: JobAssessment): Promise<void> {
    const wanted = indexes.slice(0, MAX_CREATE_PER_SYNC);
    if (wanted.length === 0) return;
    this.expectations.expectCreations(key, wanted.length);
    const ref = newControllerRef(job, 'batch/v1', 'Job');
    let batch = SLOW_START_INITIAL_BATCH;
    for (let start = 0; start < wanted.length; start += batch, batch *= 2) {
      const slice = wanted.slice(start, start + batch);
      const results = await Promise.allSettled(
        slice.map((index) => {
          const perIndex = job.spec?.backoffLimitPerIndex != null && index !== null;
          const template = podTemplateFor(job, index, perIndex ? (a.indexFailures.get(index) ?? { failed: 0, ignored: 0 }) : null);
          const pod = podFromTemplate(template, job, ref);
          pod.metadata.generateName = podGenerateName(job, index);
          return this.podControl.create(job.metadata.namespace!, pod, job);
        }),
      );
      const failed = results.filter((r) => r.status === 'rejected');
      if (failed.length === 0) continue;
      // The pods never asked for will not be observed either.
      this.expectations.creationObserved(key, failed.length + Math.max(0, wanted.length - start - slice.length));
      throw (failed[0] as PromiseRejectedResult).reason;
    }
  }

  /** handleOrphanPod: pods still holding the finalizer for a job of this name that is gone (or was replaced) let go. */
  private async releaseOrphans(key: string, job: Job | undefined): Promise<void> {
    const [namespace, name] = key.split('/');
    const orphans = (this.podInformer.list() as Pod[]).filter((pod) => {
      const ref = controllerRefOf(pod);
      return (
        pod.metadata.namespace === namespace &&
        ref?.kind === 'Job' &&
        ref.name === name &&
        ref.uid !== job?.metadata.uid &&
        (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER)
      );
    });
    await this.releasePods(orphans);
  }

  /** removeTrackingFinalizerFromPods. */
  private async releasePods(pods: Pod[]): Promise<void> {
    await Promise.all(pods.map((pod) => setFinalizer(this.pods, this.deps.own(pod.metadata.namespace!), pod, JOB_TRACKING_FINALIZER, false)));
  }

  /**
   * The status after this sync. Before the finalizers go (`counted` false) the newly finished pods
   * are listed in uncountedTerminatedPods; after, they are moved into succeeded/failed, and a job
   * whose outcome is decided and whose pods are all gone gets its terminal condition.
   */
  private status(job: Job, a: JobAssessment, nowMs: number, removed: number, counted: boolean): JobStatus {
    const spec = job.spec ?? {};
    const previous = job.status ?? {};
    const now = timestampAt(nowMs / 1000);
    const indexed = spec.completionMode === 'Indexed';
    // active, succeeded and failed are omitempty counts in kube's JobStatus; ready and terminating are pointers, shown as 0.
    const status: JobStatus = {
      ...previous,
      active: a.verdict || spec.suspend ? 0 : Math.max(0, a.active.length - removed),
      ready: a.verdict || spec.suspend ? 0 : a.ready,
      terminating: a.terminating,
    };
    if (!counted) status.uncountedTerminatedPods = a.uncounted;
    else {
      status.uncountedTerminatedPods = {};
      status.succeeded = a.succeeded;
      status.failed = a.failed;
    }
    for (const count of ['active', 'succeeded', 'failed'] as const) if (!status[count]) delete status[count];
    if (indexed) {
      status.succeeded = a.succeeded;
      status.completedIndexes = formatIntervals(a.completedIndexes);
      if (spec.backoffLimitPerIndex != null) status.failedIndexes = formatIntervals(a.failedIndexes);
    }
    let conditions = previous.conditions;
    const wasSuspended = jobCondition(job, 'Suspended')?.status === 'True';
    if (spec.suspend && !a.verdict) {
      conditions = withCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now);
    } else if (wasSuspended) {
      conditions = withCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now);
      // A resumed job's deadline counts from the resumption.
      status.startTime = now;
    }
    if (!spec.suspend) status.startTime ??= now;
    if (a.verdict) {
      conditions = withCondition(conditions, a.verdict.type, 'True', a.verdict.reason, a.verdict.message, now);
      // enactJobFinished: the terminal condition waits for every pod to be counted and gone.
      if (counted && a.active.length === 0 && a.terminating === 0) {
        const terminal = a.verdict.type === 'FailureTarget' ? 'Failed' : 'Complete';
        conditions = withCondition(conditions, terminal, 'True', a.verdict.reason, a.verdict.message, now);
        if (terminal === 'Complete') status.completionTime = now;
      }
    }
    if (conditions) status.conditions = conditions;
    return status;
  }

  /** A write over a version the cache had not caught up with is a 409: the watch brings the new one and the job is synced again. */
  private async writeStatus(job: Job, status: JobStatus): Promise<Job> {
    if (jsonEqual(status, job.status ?? {})) return job;
    const ctx = this.deps.own(job.metadata.namespace!);
    const { object } = await this.jobs.update(
      { ...ctx, info: { ...ctx.info, subresource: 'status' } },
      job.metadata.name!,
      { ...job, status },
      { dryRun: false },
    );
    return object as Job;
  }

  /** The events kube records when a job is suspended, resumed, completes or fails. */
  private recordTransitions(before: Job, after: Job): void {
    const turned = (type: 'Complete' | 'Failed' | 'Suspended'): boolean => !hasJobCondition(before, type) && hasJobCondition(after, type);
    if (turned('Suspended')) this.recorder.event(after, 'Normal', 'Suspended', 'Job suspended');
    else if (hasJobCondition(before, 'Suspended') && !hasJobCondition(after, 'Suspended')) this.recorder.event(after, 'Normal', 'Resumed', 'Job resumed');
    if (turned('Complete')) this.recorder.event(after, 'Normal', 'Completed', 'Job completed');
    if (turned('Failed')) {
      const failed = jobCondition(after, 'Failed')!;
      this.recorder.event(after, 'Warning', failed.reason ?? '', failed.message ?? '');
    }
  }
}
