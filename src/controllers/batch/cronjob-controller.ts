import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { CronJob, CronJobStatus, Job } from '../../generated/types/batch/v1';
import type { ObjectReference } from '../../generated/types/core/v1';
import { timestampAt } from '../../registry/time';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { controllerRefOf, newControllerRef } from '../pods/controller-ref';
import { parseCronSchedule } from './cron';
import { jobNameFor, mostRecentScheduleTime, NEXT_SCHEDULE_DELTA_MS, rfc1123z, rfc3339In, TOO_MANY_MISSED } from './cronjob-schedule-times';
import { hasJobCondition, isJobFinished, jobCondition } from './job-conditions';
import { jsonClone } from '../../api/json-clone';
import { compareGoStrings } from '../../api/go-string-order';

/** The annotation a CronJob's job carries: the time it was scheduled for, in the CronJob's zone. */
export const CRONJOB_SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

const RETRY_MS = 1000;

const finishedType = (job: Job): 'Complete' | 'Failed' | null =>
  hasJobCondition(job, 'Complete') ? 'Complete' : hasJobCondition(job, 'Failed') ? 'Failed' : null;

/** The order kube deletes finished jobs in for the history limits (byJobStartTime): started ones by start time, then those never started; ties by name. */
export function byJobStartTime(a: Job, b: Job): number {
  const at = a.status?.startTime;
  const bt = b.status?.startTime;
  if (!at !== !bt) return at ? -1 : 1;
  return at === bt ? compareGoStrings(a.metadata.name ?? '', b.metadata.name ?? '') : compareGoStrings(at!, bt!);
}

/**
 * kube-controller-manager's cronjob controller (pkg/controller/cronjob, the v2 one): starts a Job
 * from the template at each time the schedule names, as its concurrencyPolicy and
 * startingDeadlineSeconds allow, keeps status.active and the last schedule and success times, and
 * deletes finished jobs beyond the history limits. It wakes itself for the next schedule time on
 * the clock it is given.
 */
export class CronJobController extends QueueController {
  readonly name = 'cronjob-controller';
  protected readonly queue: WorkQueue;
  private readonly cronJobs: ObjectStore;
  private readonly jobs: ObjectStore;
  private readonly cronJobInformer: CachedInformer;
  private readonly jobInformer: CachedInformer;
  private readonly recorder: EventRecorder;
  private readonly wakeups = new Map<string, () => void>();

  constructor(private readonly deps: ControllerDeps) {
    super();
    this.cronJobs = deps.store('batch', 'v1', 'cronjobs');
    this.jobs = deps.store('batch', 'v1', 'jobs');
    this.recorder = deps.recorder('cronjob-controller');
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.log(`cronjob controller: cronjob ${key} failed`, err),
      RETRY_MS,
      deps.clock,
    );
    const enqueue = (cronJob: CronJob): void => this.queue.add(objectKey(cronJob));
    const jobChanged = (job: Job): void => {
      const ref = controllerRefOf(job);
      if (ref?.kind === 'CronJob') this.queue.add(`${job.metadata.namespace}/${ref.name}`);
    };
    this.cronJobInformer = deps.informers.informer(
      this.cronJobs,
      { added: enqueue, updated: (_, cronJob) => enqueue(cronJob), deleted: (cronJob) => this.cancelWakeup(objectKey(cronJob)) },
      { name: 'cronjobs' },
    );
    this.jobInformer = deps.informers.informer(this.jobs, { added: jobChanged, updated: (_, job) => jobChanged(job), deleted: jobChanged }, { name: 'jobs' });
  }

  protected get informers(): CachedInformer[] {
    return [this.jobInformer, this.cronJobInformer];
  }

  override stop(): void {
    super.stop();
    for (const cancel of this.wakeups.values()) cancel();
    this.wakeups.clear();
  }

  private cancelWakeup(key: string): void {
    this.wakeups.get(key)?.();
    this.wakeups.delete(key);
  }

  private wakeAt(key: string, atMs: number): void {
    this.cancelWakeup(key);
    const delay = Math.max(0, atMs - this.deps.clock.now()) + NEXT_SCHEDULE_DELTA_MS;
    this.wakeups.set(
      key,
      this.deps.clock.after(delay, () => {
        this.wakeups.delete(key);
        this.queue.add(key);
      }),
    );
  }

  private jobsOf(cronJob: CronJob): Job[] {
    return (this.jobInformer.list() as Job[]).filter(
      (job) => job.metadata.namespace === cronJob.metadata.namespace && controllerRefOf(job)?.uid === cronJob.metadata.uid,
    );
  }

  private async sync(key: string): Promise<boolean> {
    const cronJob = this.cronJobInformer.get(key) as CronJob | undefined;
    if (!cronJob) {
      this.cancelWakeup(key);
      return true;
    }
    try {
      const status = jsonClone(cronJob.status ?? {});
      const jobs = this.jobsOf(cronJob);
      this.reconcileActive(cronJob, status, jobs);
      const next = cronJob.metadata.deletionTimestamp ? null : await this.schedule(cronJob, status);
      await this.writeStatus(cronJob, status);
      await this.cleanupFinished(cronJob, jobs);
      if (next !== null) this.wakeAt(key, next);
      return true;
    } catch (err) {
      if (isStatusError(err) && err.code === 409) return false;
      throw err;
    }
  }

  /** The part of syncCronJob that follows the jobs: finished ones leave status.active, vanished ones too. */
  private reconcileActive(cronJob: CronJob, status: CronJobStatus, jobs: Job[]): void {
    const active = status.active ?? [];
    for (const job of jobs) {
      const listed = active.some((ref) => ref.uid === job.metadata.uid);
      const finished = finishedType(job);
      if (!listed && !finished) {
        this.recorder.event(cronJob, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata.name}`);
        continue;
      }
      if (listed && finished) {
        status.active = (status.active ?? []).filter((ref) => ref.uid !== job.metadata.uid);
        this.recorder.event(cronJob, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${finished}`);
      }
      if (finished === 'Complete') {
        const completed = job.status?.completionTime ?? jobCondition(job, 'Complete')?.lastTransitionTime;
        if (completed && (!status.lastSuccessfulTime || Date.parse(completed) > Date.parse(status.lastSuccessfulTime))) status.lastSuccessfulTime = completed;
      }
    }
    for (const ref of active) {
      if (jobs.some((job) => job.metadata.uid === ref.uid)) continue;
      status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
      this.recorder.event(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
    }
    if (status.active?.length === 0) delete status.active;
  }

  /** Starts the job now due, if any and if the policies allow; returns when the schedule fires next. */
  private async schedule(cronJob: CronJob, status: CronJobStatus): Promise<number | null> {
    const spec = cronJob.spec ?? {};
    const parsed = parseCronSchedule(spec.schedule ?? '', spec.timeZone);
    if ('error' in parsed) {
      this.recorder.event(cronJob, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${spec.schedule}" : ${parsed.error}`);
      return null;
    }
    if (spec.suspend) return null;
    const nowMs = this.deps.clock.now();
    const withStatus: CronJob = { ...cronJob, status };
    const { time: scheduled, missed } = mostRecentScheduleTime(withStatus, parsed, nowMs);
    const next = parsed.next(nowMs);
    if (scheduled === null) return next;
    if (missed > TOO_MANY_MISSED) {
      this.recorder.event(
        cronJob,
        'Warning',
        'TooManyMissedTimes',
        `too many missed start times: ${missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`,
      );
    }
    if (spec.startingDeadlineSeconds != null && scheduled + spec.startingDeadlineSeconds * 1000 < nowMs) {
      this.recorder.event(cronJob, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return next;
    }
    const name = jobNameFor(cronJob, scheduled);
    if ((status.active ?? []).some((ref) => ref.name === name) || (status.lastScheduleTime && Date.parse(status.lastScheduleTime) === scheduled)) return next;
    if (spec.concurrencyPolicy === 'Forbid' && (status.active ?? []).length > 0) {
      this.recorder.event(cronJob, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return next;
    }
    if (spec.concurrencyPolicy === 'Replace') {
      for (const ref of status.active ?? []) {
        await this.deleteJob(cronJob, ref.name ?? '');
        status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
      }
    }
    const job = await this.createJob(cronJob, name, scheduled);
    if (!job) return next;
    const ref: ObjectReference = {
      kind: 'Job',
      namespace: job.metadata.namespace,
      name: job.metadata.name,
      uid: job.metadata.uid,
      apiVersion: 'batch/v1',
      resourceVersion: job.metadata.resourceVersion,
    };
    status.active = [...(status.active ?? []), ref];
    status.lastScheduleTime = timestampAt(scheduled / 1000);
    return next;
  }

  /** getJobFromTemplate2 and the create: the template's labels and annotations, the scheduled time, the controller reference. */
  private async createJob(cronJob: CronJob, name: string, scheduledMs: number): Promise<Job | null> {
    const template = cronJob.spec?.jobTemplate ?? { metadata: {} };
    const job: Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: cronJob.metadata.namespace,
        labels: { ...template.metadata?.labels },
        annotations: { ...template.metadata?.annotations, [CRONJOB_SCHEDULED_TIMESTAMP]: rfc3339In(scheduledMs, cronJob.spec?.timeZone) },
        ownerReferences: [newControllerRef(cronJob, 'batch/v1', 'CronJob')],
      },
      spec: jsonClone(template.spec ?? {}),
    };
    if (Object.keys(job.metadata.labels!).length === 0) delete job.metadata.labels;
    try {
      const created = (await this.jobs.create(this.deps.admitted(cronJob.metadata.namespace!), job, { dryRun: false })) as Job;
      this.recorder.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${name}`);
      return created;
    } catch (err) {
      if (isStatusError(err) && err.code === 409) {
        // Made by an earlier pass whose status write was lost: it is ours if it names us.
        const existing = this.jobInformer.get(`${cronJob.metadata.namespace}/${name}`) as Job | undefined;
        return existing && controllerRefOf(existing)?.uid === cronJob.metadata.uid && !isJobFinished(existing) ? existing : null;
      }
      this.recorder.event(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }

  private async deleteJob(cronJob: CronJob, name: string): Promise<void> {
    try {
      await this.jobs.delete(this.deps.admitted(cronJob.metadata.namespace!), name, { dryRun: false, propagationPolicy: 'Background' });
      this.recorder.event(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return;
      this.recorder.event(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }

  /** cleanupFinishedJobs: the oldest finished jobs beyond successfulJobsHistoryLimit and failedJobsHistoryLimit go. */
  private async cleanupFinished(cronJob: CronJob, jobs: Job[]): Promise<void> {
    const spec = cronJob.spec ?? {};
    for (const [type, limit] of [
      ['Complete', spec.successfulJobsHistoryLimit],
      ['Failed', spec.failedJobsHistoryLimit],
    ] as const) {
      if (limit == null) continue;
      const finished = jobs.filter((job) => finishedType(job) === type && !job.metadata.deletionTimestamp).sort(byJobStartTime);
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) await this.deleteJob(cronJob, job.metadata.name ?? '');
    }
  }

  private async writeStatus(cronJob: CronJob, status: CronJobStatus): Promise<void> {
    if (jsonEqual(status, cronJob.status ?? {})) return;
    const ctx = this.deps.own(cronJob.metadata.namespace!);
    await this.cronJobs.update({ ...ctx, info: { ...ctx.info, subresource: 'status' } }, cronJob.metadata.name!, { ...cronJob, status }, { dryRun: false });
  }
}
