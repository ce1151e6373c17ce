import { jsonEqual } from '../api/deep-equal';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn as records } from '../api/json-read';
import { fromLabelSelectorStruct, matchesLabels } from '../api/label-selector';
import { validateLabelSelector, validateLabels } from '../api/meta-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defaultPodSpec, validatePodSpec } from './pod-spec';
import { jsonClone } from '../api/json-clone';

/** A batch/v1 JobSpec, shared by Jobs and the job template of CronJobs. */

type Obj = Record<string, unknown>;

export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
/** The unprefixed labels the job controller set before the batch.kubernetes.io ones, still set and checked. */
export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';

const MAX_PARALLELISM_FOR_INDEXED_JOB = 100000;
const NEGATIVE = 'must be greater than or equal to 0';
const NONNEGATIVE_FIELDS = [
  'parallelism',
  'completions',
  'activeDeadlineSeconds',
  'backoffLimit',
  'ttlSecondsAfterFinished',
  'backoffLimitPerIndex',
  'maxFailedIndexes',
];

function templateOf(spec: Obj): Obj | undefined {
  return isPlainObject(spec.template) ? spec.template : undefined;
}

function templateLabels(spec: Obj): Record<string, string> | undefined {
  const template = templateOf(spec);
  return template && isPlainObject(template.metadata) ? (template.metadata.labels as Record<string, string> | undefined) : undefined;
}

/**
 * What every JobSpec gets, wherever it sits (generated defaulters for Job and CronJob): a pod
 * condition pattern's status is True, and the pod template's spec defaults.
 */
export function defaultJobTemplateParts(spec: Obj): void {
  if (isPlainObject(spec.podFailurePolicy)) {
    for (const rule of records(spec.podFailurePolicy.rules)) {
      for (const pattern of records(rule.onPodConditions)) if (!pattern.status) pattern.status = 'True';
    }
  }
  const template = templateOf(spec);
  if (template) defaultPodSpec(template.spec);
}

/** SetDefaults_Job: only a Job's own spec gets these, not a CronJob's job template. */
export function defaultJob(job: KubeObject): void {
  if (!isPlainObject(job.spec)) job.spec = {};
  const spec = job.spec as Obj;
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? 2147483647 : 6;
  const labels = templateLabels(spec);
  if (labels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...labels };
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy != null ? 'Failed' : 'TerminatingOrFailed';
  defaultJobTemplateParts(spec);
}

/**
 * generateSelector: unless manualSelector is true, the template gets the job's name and uid as
 * labels (keeping any the client set, which validation then checks) and the selector picks the uid.
 */
export function generateSelector(job: KubeObject): void {
  if (!isPlainObject(job.spec)) return;
  const spec = job.spec;
  if (spec.manualSelector === true) return;
  if (!isPlainObject(spec.template)) spec.template = {};
  const template = spec.template as Obj;
  if (!isPlainObject(template.metadata)) template.metadata = {};
  const meta = template.metadata as Obj;
  const labels = (isPlainObject(meta.labels) ? meta.labels : {}) as Record<string, string>;
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[key] ??= name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) labels[key] ??= uid;
  meta.labels = labels;
  if (!isPlainObject(spec.selector)) spec.selector = {};
  const selector = spec.selector as Obj;
  const matchLabels = (isPlainObject(selector.matchLabels) ? selector.matchLabels : {}) as Record<string, string>;
  matchLabels[CONTROLLER_UID_LABEL] ??= uid;
  selector.matchLabels = matchLabels;
}

/** validateJobSpec: the rules a JobSpec obeys in a Job and in a CronJob's template alike. */
export function validateJobSpecCommon(spec: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const key of NONNEGATIVE_FIELDS) {
    const value = spec[key];
    if (typeof value === 'number' && value < 0) errs.push(field.invalid(`${path}.${key}`, value, NEGATIVE));
  }
  if (spec.completionMode === 'Indexed') {
    if (spec.completions == null) errs.push(field.required(`${path}.completions`, 'when completion mode is Indexed'));
    if (typeof spec.parallelism === 'number' && spec.parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
      errs.push(
        field.invalid(
          `${path}.parallelism`,
          spec.parallelism,
          `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`,
        ),
      );
    }
  }
  const replacement = spec.podReplacementPolicy;
  if (replacement != null && spec.podFailurePolicy != null && replacement !== 'Failed') {
    errs.push(field.notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed']));
  } else if (replacement != null && replacement !== 'Failed' && replacement !== 'TerminatingOrFailed') {
    errs.push(field.notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed', 'TerminatingOrFailed']));
  }
  const template = templateOf(spec);
  const templatePath = `${path}.template`;
  errs.push(...validateLabels(templateLabels(spec), `${templatePath}.metadata.labels`));
  errs.push(...validatePodSpec(template?.spec, `${templatePath}.spec`));
  // The pod template defaults restartPolicy to Always, which a Job cannot run; hence "required".
  const restartPolicy = isPlainObject(template?.spec) ? template.spec.restartPolicy : undefined;
  const restartPath = `${templatePath}.spec.restartPolicy`;
  if (restartPolicy === undefined || restartPolicy === '' || restartPolicy === 'Always') {
    errs.push(field.required(restartPath, 'valid values: "OnFailure", "Never"'));
  } else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errs.push(field.notSupported(restartPath, restartPolicy, ['OnFailure', 'Never']));
  } else if (spec.podFailurePolicy != null && restartPolicy !== 'Never') {
    errs.push(field.invalid(restartPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

/** ValidateJobSpec: a Job's own spec needs a valid selector matching its template's labels. */
export function validateJobSpec(spec: Obj, path: string): FieldErrorList {
  const errs = validateJobSpecCommon(spec, path);
  const selector = spec.selector;
  if (!isPlainObject(selector)) {
    errs.push(field.required(`${path}.selector`));
    return errs;
  }
  const selectorErrs = validateLabelSelector(selector, `${path}.selector`);
  errs.push(...selectorErrs);
  const labels = templateLabels(spec) ?? {};
  if (selectorErrs.length === 0 && !matchesLabels(fromLabelSelectorStruct(selector), labels)) {
    errs.push(field.invalid(`${path}.template.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  return errs;
}

function validateHasLabel(labels: Record<string, string>, key: string, expected: string): FieldErrorList {
  const path = `spec.template.metadata.labels[${key}]`;
  if (!(key in labels)) return [field.required(path, expected)];
  return labels[key] === expected ? [] : [field.invalid(path, labels, `must be '${expected}'`)];
}

/** ValidateGeneratedSelector: a generated selector and labels still name this job. */
export function validateGeneratedSelector(job: KubeObject): FieldErrorList {
  const spec = isPlainObject(job.spec) ? job.spec : {};
  if (spec.manualSelector === true || !isPlainObject(spec.selector)) return [];
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  const labels = templateLabels(spec) ?? {};
  const errs = [
    ...validateHasLabel(labels, LEGACY_CONTROLLER_UID_LABEL, uid),
    ...validateHasLabel(labels, LEGACY_JOB_NAME_LABEL, name),
    ...validateHasLabel(labels, CONTROLLER_UID_LABEL, uid),
    ...validateHasLabel(labels, JOB_NAME_LABEL, name),
  ];
  const expected = { [CONTROLLER_UID_LABEL]: uid, [JOB_NAME_LABEL]: name, [LEGACY_CONTROLLER_UID_LABEL]: uid, [LEGACY_JOB_NAME_LABEL]: name };
  if (validateLabelSelector(spec.selector, 'spec.selector').length === 0 && !matchesLabels(fromLabelSelectorStruct(spec.selector), expected)) {
    errs.push(field.invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
  }
  return errs;
}

/** ValidateJobTemplateSpec: a CronJob's job template never carries a selector of its own. */
export function validateJobTemplateSpec(spec: Obj, path: string): FieldErrorList {
  const errs = validateJobSpecCommon(spec, path);
  if (spec.selector != null) errs.push(field.invalid(`${path}.selector`, spec.selector, '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(field.notSupported(`${path}.manualSelector`, true, ['nil', 'false']));
  return errs;
}

const IMMUTABLE = 'field is immutable';
const IMMUTABLE_FIELDS = ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy'];

/**
 * The template fields a suspended Job that never started may change (scheduling directives),
 * copied from the update so that only the rest is compared.
 */
function schedulingDirectivesFrom(next: Obj, prev: Obj): Obj {
  const merged = jsonClone(prev);
  const meta = (merged.metadata ??= {}) as Obj;
  const nextMeta = isPlainObject(next.metadata) ? next.metadata : {};
  meta.labels = nextMeta.labels;
  meta.annotations = nextMeta.annotations;
  const podSpec = (merged.spec ??= {}) as Obj;
  const nextSpec = isPlainObject(next.spec) ? next.spec : {};
  for (const key of ['nodeSelector', 'tolerations', 'schedulingGates']) podSpec[key] = nextSpec[key];
  const nextAffinity = isPlainObject(nextSpec.affinity) ? nextSpec.affinity : undefined;
  const prevAffinity = isPlainObject(podSpec.affinity) ? podSpec.affinity : undefined;
  if (nextAffinity || prevAffinity) {
    const { nodeAffinity: _ignored, ...rest } = prevAffinity ?? {};
    const affinity: Obj = nextAffinity?.nodeAffinity !== undefined ? { ...rest, nodeAffinity: nextAffinity.nodeAffinity } : rest;
    podSpec.affinity = !nextAffinity && Object.keys(affinity).length === 0 ? undefined : affinity;
  }
  return merged;
}

/** ValidateJobSpecUpdate: what a Job's spec may not change once created. */
export function validateJobSpecUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const spec = isPlainObject(next.spec) ? next.spec : {};
  const old = isPlainObject(prev.spec) ? prev.spec : {};
  const errs: FieldErrorList = [];
  const indexed = spec.completionMode === 'Indexed';
  if (!jsonEqual(spec.completions, old.completions)) {
    if (!indexed) errs.push(field.invalid('spec.completions', spec.completions ?? null, IMMUTABLE));
    else if (spec.completions != null && spec.completions !== spec.parallelism) {
      errs.push(field.invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'));
    }
  }
  if (!jsonEqual(spec.selector, old.selector)) errs.push(field.invalid('spec.selector', spec.selector ?? null, IMMUTABLE));
  const status = isPlainObject(prev.status) ? prev.status : {};
  const mayReschedule = old.suspend === true && status.startTime == null;
  const template = isPlainObject(spec.template) ? spec.template : {};
  const oldTemplate = isPlainObject(old.template) ? old.template : {};
  const comparedTemplate = mayReschedule ? schedulingDirectivesFrom(template, oldTemplate) : oldTemplate;
  if (!jsonEqual(template, comparedTemplate)) errs.push(field.invalid('spec.template', template, IMMUTABLE));
  for (const key of IMMUTABLE_FIELDS) {
    if (!jsonEqual(spec[key], old[key])) errs.push(field.invalid(`spec.${key}`, spec[key] ?? null, IMMUTABLE));
  }
  return errs;
}
