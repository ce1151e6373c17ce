import type { Job } from '../../generated/types/batch/v1';
import type { Container, PodTemplateSpec } from '../../generated/types/core/v1';
import { JOB_COMPLETION_INDEX, JOB_INDEX_FAILURE_COUNT, JOB_INDEX_IGNORED_FAILURE_COUNT } from './indexes';
import { jsonClone } from '../../api/json-clone';

/** The finalizer that keeps a finished pod until the job controller has counted it. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';

/** The index's failures so far, carried by its replacement pods when the job has backoffLimitPerIndex. */
export interface IndexFailures {
  failed: number;
  ignored: number;
}

/** addCompletionIndexEnvVariable: every container (init ones too) learns its index from the annotation. */
function withIndexEnv(container: Container): Container {
  if ((container.env ?? []).some((e) => e.name === 'JOB_COMPLETION_INDEX')) return container;
  const env = { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX}']` } } };
  return { ...container, env: [...(container.env ?? []), env] };
}

/**
 * The template of one of the job's pods, as the job controller makes it before PodControl creates it:
 * the tracking finalizer, and for an Indexed job the index as annotation, label, hostname and env.
 */
export function podTemplateFor(job: Job, index: number | null, failures: IndexFailures | null): PodTemplateSpec {
  const template: PodTemplateSpec = jsonClone(job.spec?.template ?? { metadata: {} });
  const metadata = template.metadata;
  metadata.finalizers = [...(metadata.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER), JOB_TRACKING_FINALIZER];
  if (index === null) return template;
  metadata.annotations = { ...metadata.annotations, [JOB_COMPLETION_INDEX]: String(index) };
  metadata.labels = { ...metadata.labels, [JOB_COMPLETION_INDEX]: String(index) };
  if (failures) {
    metadata.annotations[JOB_INDEX_FAILURE_COUNT] = String(failures.failed);
    if (failures.ignored > 0) metadata.annotations[JOB_INDEX_IGNORED_FAILURE_COUNT] = String(failures.ignored);
  }
  const spec = (template.spec ??= { containers: [] });
  spec.hostname ||= `${job.metadata.name}-${index}`;
  spec.containers = (spec.containers ?? []).map(withIndexEnv);
  if (spec.initContainers) spec.initContainers = spec.initContainers.map(withIndexEnv);
  return template;
}

/** podGenerateNameWithIndex: `<job>-<index>-`, the job's name cut so the pod name stays a label's length. */
export function podGenerateName(job: Job, index: number | null): string {
  const name = job.metadata.name ?? '';
  if (index === null) return `${name}-`;
  const suffix = `-${index}-`;
  const maxLength = 63 - 5 - suffix.length;
  return `${name.slice(0, maxLength)}${suffix}`;
}
