import { field, type FieldErrorList } from '../api/field-errors';
import type { CronJob } from '../generated/types/batch/v1';
import { isPlainObject } from '../api/types';
import { defineResource, type PrinterColumn } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { age, AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { cronScheduleError, isKnownTimeZone } from './cron-schedule';
import { defaultJobTemplateParts, validateJobTemplateSpec } from './job-spec';
import { JOB_SELECTOR_DESCRIPTION } from './jobs';
import { formatLabelSelector, specObject } from './workload';

type Obj = Record<string, unknown>;

/** The controller names a CronJob's jobs `<name>-<11 characters>`, and a job name is a DNS label. */
const MAX_CRONJOB_NAME_LENGTH = 63 - 11;
const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;
const NEGATIVE = 'must be greater than or equal to 0';

function jobTemplateSpec(cronJob: CronJob): Obj {
  const spec = specObject(cronJob);
  if (!isPlainObject(spec.jobTemplate)) spec.jobTemplate = {};
  const template = spec.jobTemplate as Obj;
  if (!isPlainObject(template.spec)) template.spec = {};
  return template.spec as Obj;
}

/** SetDefaults_CronJob; the job template gets only what the generated defaulters give any JobSpec. */
function defaultCronJob(cronJob: CronJob): void {
  const spec = specObject(cronJob);
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  defaultJobTemplateParts(jobTemplateSpec(cronJob));
}

function validateSchedule(schedule: unknown): FieldErrorList {
  if (typeof schedule !== 'string' || schedule === '') return [field.required('spec.schedule')];
  const errs: FieldErrorList = [];
  const parseError = cronScheduleError(schedule);
  if (parseError) errs.push(field.invalid('spec.schedule', schedule, parseError));
  if (schedule.includes('TZ')) errs.push(field.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  return errs;
}

/** validateTimeZone: an explicit IANA zone name, never "Local". */
function validateTimeZone(timeZone: unknown): FieldErrorList {
  if (timeZone == null) return [];
  const path = 'spec.timeZone';
  if (timeZone === '') return [field.invalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  const zone = String(timeZone);
  if (zone.split('/').some((part) => part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part))) {
    return [field.invalid(path, zone, `unknown time zone ${zone}`)];
  }
  const errs: FieldErrorList = [];
  if (zone.toLowerCase() === 'local')
    errs.push(field.invalid(path, zone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  if (!isKnownTimeZone(zone)) errs.push(field.invalid(path, zone, `unknown time zone ${zone}`));
  return errs;
}

function validateNonnegative(spec: Obj, key: string): FieldErrorList {
  const value = spec[key];
  return typeof value === 'number' && value < 0 ? [field.invalid(`spec.${key}`, value, NEGATIVE)] : [];
}

/** ValidateCronJobCreate and validateCronJobSpec, in kube-apiserver's order. */
function validateCronJob(cronJob: CronJob): FieldErrorList {
  const spec = specObject(cronJob);
  const errs = [...validateSchedule(spec.schedule), ...validateNonnegative(spec, 'startingDeadlineSeconds'), ...validateTimeZone(spec.timeZone)];
  if (!CONCURRENCY_POLICIES.includes(spec.concurrencyPolicy as string)) {
    errs.push(field.notSupported('spec.concurrencyPolicy', spec.concurrencyPolicy, CONCURRENCY_POLICIES));
  }
  errs.push(...validateJobTemplateSpec(jobTemplateSpec(cronJob), 'spec.jobTemplate.spec'));
  errs.push(...validateNonnegative(spec, 'successfulJobsHistoryLimit'), ...validateNonnegative(spec, 'failedJobsHistoryLimit'));
  const name = cronJob.metadata.name ?? '';
  if (name.length > MAX_CRONJOB_NAME_LENGTH) errs.push(field.invalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME_LENGTH} characters`));
  return errs;
}

function podTemplateContainers(cronJob: CronJob): Obj[] {
  const spec = isPlainObject(cronJob.spec) ? cronJob.spec : {};
  const jobSpec = isPlainObject(spec.jobTemplate) && isPlainObject(spec.jobTemplate.spec) ? spec.jobTemplate.spec : {};
  const podSpec = isPlainObject(jobSpec.template) && isPlainObject(jobSpec.template.spec) ? jobSpec.template.spec : {};
  return Array.isArray(podSpec.containers) ? podSpec.containers.filter(isPlainObject) : [];
}

function specField(cronJob: CronJob, key: string): unknown {
  return isPlainObject(cronJob.spec) ? cronJob.spec[key] : undefined;
}

function statusField(cronJob: CronJob, key: string): unknown {
  return isPlainObject(cronJob.status) ? cronJob.status[key] : undefined;
}

/** printBoolPtr. */
function boolCell(value: unknown): string {
  if (typeof value !== 'boolean') return '<unset>';
  return value ? 'True' : 'False';
}

const columns: PrinterColumn[] = [
  NAME_COLUMN,
  {
    name: 'Schedule',
    type: 'string',
    description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.',
    cell: (cj) => specField(cj, 'schedule') ?? '',
  },
  {
    name: 'Timezone',
    type: 'string',
    description:
      'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones',
    cell: (cj) => specField(cj, 'timeZone') ?? '<none>',
  },
  {
    name: 'Suspend',
    type: 'boolean',
    description: 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.',
    cell: (cj) => boolCell(specField(cj, 'suspend')),
  },
  {
    name: 'Active',
    type: 'integer',
    description: 'A list of pointers to currently running jobs.',
    cell: (cj) => {
      const active = statusField(cj, 'active');
      return Array.isArray(active) ? active.length : 0;
    },
  },
  {
    name: 'Last Schedule',
    type: 'string',
    description: 'Information when was the last time the job was successfully scheduled.',
    cell: (cj) => {
      const last = statusField(cj, 'lastScheduleTime');
      return typeof last === 'string' ? age(last) : '<none>';
    },
  },
  AGE_COLUMN,
  {
    name: 'Containers',
    type: 'string',
    priority: 1,
    description: 'Names of each container in the template.',
    cell: (cj) =>
      podTemplateContainers(cj)
        .map((c) => String(c.name ?? ''))
        .join(','),
  },
  {
    name: 'Images',
    type: 'string',
    priority: 1,
    description: 'Images referenced by each container in the template.',
    cell: (cj) =>
      podTemplateContainers(cj)
        .map((c) => String(c.image ?? ''))
        .join(','),
  },
  {
    name: 'Selector',
    type: 'string',
    priority: 1,
    description: JOB_SELECTOR_DESCRIPTION,
    cell: (cj) => {
      const jobTemplate = specField(cj, 'jobTemplate');
      return formatLabelSelector(isPlainObject(jobTemplate) && isPlainObject(jobTemplate.spec) ? jobTemplate.spec.selector : undefined);
    },
  },
];

export const cronjobs = defineResource<CronJob>({
  group: 'batch',
  version: 'v1',
  resource: 'cronjobs',
  kind: 'CronJob',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  subresources: ['status'],
  strategy: strategy<CronJob>({
    tracksGeneration: true,
    prepareForCreate: (cronJob) => {
      cronJob.status = {};
    },
    applyDefaults: defaultCronJob,
    validate: validateCronJob,
  }),
  printerColumns: columns,
});
