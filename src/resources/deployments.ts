import { jsonEqual } from '../api/deep-equal';
import type { Deployment } from '../generated/types/apps/v1';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import {
  CONTAINERS_COLUMN,
  defaultTemplate,
  IMAGES_COLUMN,
  num,
  SELECTOR_COLUMN,
  specObject,
  validateReplicas,
  validateSelectorAndTemplate,
  validateSelectorUnchanged,
  WORKLOAD_SCALE,
} from './workload';
import { validateDeploymentStatusUpdate } from './status-validation';

export const deployments = defineResource<Deployment>({
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  scale: WORKLOAD_SCALE,
  strategy: strategy<Deployment>({
    validateStatusUpdate: validateDeploymentStatusUpdate,
    tracksGeneration: true,
    annotationsThroughStatus: true,
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    prepareForUpdate: (next, prev) => {
      // A rollback is requested through annotations, so they count as a change of intent.
      if (!jsonEqual(next.metadata.annotations ?? {}, prev.metadata.annotations ?? {})) {
        next.metadata.generation = (prev.metadata.generation ?? 0) + 1;
      }
    },
    applyDefaults: (obj) => {
      const spec = specObject(obj);
      spec.replicas ??= 1;
      const strategySpec = (spec.strategy ??= {}) as Record<string, unknown>;
      strategySpec.type ??= 'RollingUpdate';
      if (strategySpec.type === 'RollingUpdate') {
        const ru = (strategySpec.rollingUpdate ??= {}) as Record<string, unknown>;
        ru.maxUnavailable ??= '25%';
        ru.maxSurge ??= '25%';
      }
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      defaultTemplate(spec);
    },
    validate: (obj) => [...validateReplicas(specObject(obj), 'spec'), ...validateSelectorAndTemplate(specObject(obj), 'spec', ['Always'], 'deployment')],
    validateUpdate: validateSelectorUnchanged,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Ready',
      type: 'string',
      description: 'Number of the pod with ready state',
      cell: (o) => `${num(o, 'status', 'readyReplicas')}/${num(o, 'spec', 'replicas')}`,
    },
    {
      name: 'Up-to-date',
      type: 'string',
      description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      cell: (o) => num(o, 'status', 'updatedReplicas'),
    },
    {
      name: 'Available',
      type: 'string',
      description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      cell: (o) => num(o, 'status', 'availableReplicas'),
    },
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
  ],
});
