import { goQuote } from '../api/field-errors';
import { isPlainObject } from '../api/types';
import type { Job } from '../generated/types/batch/v1';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, humanDuration, NAME_COLUMN } from '../registry/table';
import { defaultJob, generateSelector, validateGeneratedSelector, validateJobSpec, validateJobSpecUpdate } from './job-spec';
import { CONTAINERS_COLUMN, formatLabelSelector, IMAGES_COLUMN, specObject } from './workload';
import { validateJobStatusUpdate } from './status-validation';

type Obj = Record<string, unknown>;

export const JOB_SELECTOR_DESCRIPTION =
  'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors';

function statusOf(job: Job): Obj {
  return isPlainObject(job.status) ? job.status : {};
}

function hasCondition(job: Job, type: string): boolean {
  const conditions = statusOf(job).conditions;
  const found = Array.isArray(conditions) ? conditions.find((c) => isPlainObject(c) && c.type === type) : undefined;
  return isPlainObject(found) && found.status === 'True';
}

/** printJob's status: terminal conditions first, then deletion, then the transient conditions. */
function jobStatus(job: Job): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  for (const type of ['Suspended', 'FailureTarget', 'SuccessCriteriaMet']) if (hasCondition(job, type)) return type;
  return 'Running';
}

function completions(job: Job): string {
  const spec = isPlainObject(job.spec) ? job.spec : {};
  const succeeded = typeof statusOf(job).succeeded === 'number' ? (statusOf(job).succeeded as number) : 0;
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function duration(job: Job): string {
  const { startTime, completionTime } = statusOf(job);
  if (typeof startTime !== 'string') return '';
  const end = typeof completionTime === 'string' ? Date.parse(completionTime) : Date.now();
  return humanDuration(end - Date.parse(startTime));
}

export const jobs = defineResource<Job>({
  group: 'batch',
  version: 'v1',
  resource: 'jobs',
  kind: 'Job',
  namespaced: true,
  // pkg/apis/batch/v1 addConversionFuncs words its refusal its own way
  fieldLabelConversion: { refusal: (label) => `field label ${goQuote(label)} not supported for Job` },
  // JobToSelectableFields: status.succeeded in decimal, under the name "status.successful"
  selectableFields: { 'status.successful': (job) => String(typeof statusOf(job).succeeded === 'number' ? statusOf(job).succeeded : 0) },
  categories: ['all'],
  subresources: ['status'],
  strategy: strategy<Job>({
    validateStatusUpdate: validateJobStatusUpdate,
    tracksGeneration: true,
    prepareForCreate: (job) => {
      generateSelector(job);
      job.status = {};
    },
    applyDefaults: defaultJob,
    validate: (job) => [...validateGeneratedSelector(job), ...validateJobSpec(specObject(job), 'spec')],
    validateUpdate: validateJobSpecUpdate,
  }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'Status of the job.', cell: jobStatus },
    {
      name: 'Completions',
      type: 'string',
      description:
        'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.',
      cell: completions,
    },
    { name: 'Duration', type: 'string', description: 'Time required to complete the job.', cell: duration },
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    {
      name: 'Selector',
      type: 'string',
      priority: 1,
      description: JOB_SELECTOR_DESCRIPTION,
      cell: (job) => formatLabelSelector((job.spec as Obj | undefined)?.selector),
    },
  ],
});
