import { field, type FieldErrorList } from '../api/field-errors';
import type { ReplicationController } from '../generated/types/core/v1';
import { validateLabels } from '../api/meta-validation';
import { isPlainObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validatePodSpec } from './pod-spec';
import { validateReplicaSetStatusUpdate } from './status-validation';
import { CONTAINERS_COLUMN, defaultTemplate, IMAGES_COLUMN, num, specObject, validateReplicas } from './workload';
import { compareGoStrings } from '../api/go-string-order';

type Labels = Record<string, string>;

function labelSet(v: unknown): Labels {
  return isPlainObject(v) ? (v as Labels) : {};
}

function templateLabels(spec: Record<string, unknown>): Labels | undefined {
  const template = spec.template;
  return isPlainObject(template) && isPlainObject(template.metadata) ? (template.metadata.labels as Labels | undefined) : undefined;
}

/** SetDefaults_ReplicationController: selector and labels from the template's labels when empty, one replica. */
function defaultReplicationController(obj: ReplicationController): void {
  const spec = specObject(obj);
  const fromTemplate = templateLabels(spec);
  if (fromTemplate && Object.keys(fromTemplate).length > 0) {
    if (Object.keys(labelSet(spec.selector)).length === 0) spec.selector = { ...fromTemplate };
    if (Object.keys(obj.metadata.labels ?? {}).length === 0) obj.metadata.labels = { ...fromTemplate };
  }
  spec.replicas ??= 1;
  defaultTemplate(spec);
}

/** labels.FormatLabels. */
export function formatLabels(v: unknown): string {
  const entries = Object.entries(labelSet(v)).sort(([a], [b]) => compareGoStrings(a, b));
  return entries.length === 0 ? '<none>' : entries.map(([k, val]) => `${k}=${val}`).join(',');
}

/** ValidateReplicationControllerSpec with ValidatePodTemplateSpecForRC. */
function validateReplicationController(obj: ReplicationController): FieldErrorList {
  const spec = specObject(obj);
  const errs: FieldErrorList = [];
  const minReady = spec.minReadySeconds;
  if (typeof minReady === 'number' && minReady < 0) errs.push(field.invalid('spec.minReadySeconds', minReady, 'must be greater than or equal to 0'));
  const selector = labelSet(spec.selector);
  if (Object.keys(selector).length === 0) errs.push(field.required('spec.selector'));
  errs.push(...validateReplicas(spec, 'spec'));
  const template = spec.template;
  if (!isPlainObject(template)) {
    errs.push(field.required('spec.template'));
    return errs;
  }
  const labels = templateLabels(spec) ?? {};
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(field.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validateLabels(labels, 'spec.template.metadata.labels'));
  errs.push(...validatePodSpec(template.spec, 'spec.template.spec'));
  const podSpec = isPlainObject(template.spec) ? template.spec : {};
  if (podSpec.restartPolicy !== 'Always') errs.push(field.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(field.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

/** core/v1 ReplicationController, as pkg/registry/core/replicationcontroller serves it. */
export const replicationcontrollers = defineResource<ReplicationController>({
  group: '',
  version: 'v1',
  resource: 'replicationcontrollers',
  kind: 'ReplicationController',
  namespaced: true,
  fieldLabelConversion: {},
  // ControllerToSelectableFields: the count in decimal, 0 when unset
  selectableFields: { 'status.replicas': (rc) => String(num(rc, 'status', 'replicas')) },
  shortNames: ['rc'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  storagePath: 'controllers',
  scale: {
    specReplicasPath: ['spec', 'replicas'],
    statusReplicasPath: ['status', 'replicas'],
    labelSelectorPath: ['spec', 'selector'],
    selectorIsLabelSet: true,
  },
  strategy: strategy<ReplicationController>({
    validateStatusUpdate: validateReplicaSetStatusUpdate,
    tracksGeneration: true,
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    applyDefaults: defaultReplicationController,
    validate: validateReplicationController,
    // rcStrategy.DefaultGarbageCollectionPolicy: core/v1 keeps orphaning a controller's pods by default.
    garbageCollectionPolicy: 'OrphanDependents',
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Desired',
      type: 'integer',
      description:
        'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
      cell: (o) => num(o, 'spec', 'replicas'),
    },
    {
      name: 'Current',
      type: 'integer',
      description:
        'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
      cell: (o) => num(o, 'status', 'replicas'),
    },
    {
      name: 'Ready',
      type: 'integer',
      description: 'The number of ready replicas for this replication controller.',
      cell: (o) => num(o, 'status', 'readyReplicas'),
    },
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    {
      name: 'Selector',
      type: 'string',
      priority: 1,
      description:
        'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
      cell: (o) => formatLabels((o.spec as Record<string, unknown> | undefined)?.selector),
    },
  ],
});
