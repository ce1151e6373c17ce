import { isPlainObject } from '../api/types';
import type { StatefulSet } from '../generated/types/apps/v1';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import {
  CONTAINERS_COLUMN,
  defaultTemplate,
  IMAGES_COLUMN,
  num,
  specObject,
  validateReplicas,
  validateSelectorAndTemplate,
  validateSelectorUnchanged,
  WORKLOAD_SCALE,
} from './workload';
import { validateStatefulSetStatusUpdate } from './status-validation';

export const statefulsets = defineResource<StatefulSet>({
  group: 'apps',
  version: 'v1',
  resource: 'statefulsets',
  kind: 'StatefulSet',
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  scale: WORKLOAD_SCALE,
  strategy: strategy<StatefulSet>({
    validateStatusUpdate: validateStatefulSetStatusUpdate,
    tracksGeneration: true,
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    applyDefaults: (obj) => {
      const spec = specObject(obj);
      spec.replicas ??= 1;
      spec.podManagementPolicy ??= 'OrderedReady';
      if (!isPlainObject(spec.updateStrategy) || spec.updateStrategy.type === undefined) {
        spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 }, ...(isPlainObject(spec.updateStrategy) ? spec.updateStrategy : {}) };
      } else if (isPlainObject(spec.updateStrategy.rollingUpdate)) {
        spec.updateStrategy.rollingUpdate.partition ??= 0;
      }
      spec.revisionHistoryLimit ??= 10;
      spec.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: 'Retain', whenScaled: 'Retain' };
      defaultTemplate(spec);
    },
    validate: (obj) => [...validateReplicas(specObject(obj), 'spec'), ...validateSelectorAndTemplate(specObject(obj), 'spec', ['Always'], 'statefulset')],
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
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
  ],
});
