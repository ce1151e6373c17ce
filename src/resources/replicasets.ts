import { defineResource } from '../registry/resource-definition';
import type { ReplicaSet } from '../generated/types/apps/v1';
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
import { validateReplicaSetStatusUpdate } from './status-validation';

export const replicasets = defineResource<ReplicaSet>({
  group: 'apps',
  version: 'v1',
  resource: 'replicasets',
  kind: 'ReplicaSet',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  scale: WORKLOAD_SCALE,
  strategy: strategy<ReplicaSet>({
    validateStatusUpdate: validateReplicaSetStatusUpdate,
    tracksGeneration: true,
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    applyDefaults: (obj) => {
      const spec = specObject(obj);
      spec.replicas ??= 1;
      defaultTemplate(spec);
    },
    validate: (obj) => [...validateReplicas(specObject(obj), 'spec'), ...validateSelectorAndTemplate(specObject(obj), 'spec', ['Always'], 'replicaset')],
    validateUpdate: validateSelectorUnchanged,
  }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', description: 'Replicas is the number of desired replicas.', cell: (o) => num(o, 'spec', 'replicas') },
    { name: 'Current', type: 'integer', description: 'Replicas is the most recently observed number of replicas.', cell: (o) => num(o, 'status', 'replicas') },
    { name: 'Ready', type: 'integer', description: 'The number of ready replicas for this replica set.', cell: (o) => num(o, 'status', 'readyReplicas') },
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
  ],
});
