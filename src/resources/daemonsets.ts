import { isPlainObject } from '../api/types';
import type { DaemonSet } from '../generated/types/apps/v1';
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
  validateSelectorAndTemplate,
  validateSelectorUnchanged,
} from './workload';
import { validateDaemonSetStatusUpdate } from './status-validation';
import { prepareTemplateGenerationForCreate, prepareTemplateGenerationForUpdate } from './daemonset-template-generation';
import { compareGoStrings } from '../api/go-string-order';

function nodeSelector(o: Record<string, unknown>): string {
  const template = (o.spec as Record<string, unknown> | undefined)?.template;
  const podSpec = isPlainObject(template) ? template.spec : undefined;
  const sel = isPlainObject(podSpec) && isPlainObject(podSpec.nodeSelector) ? podSpec.nodeSelector : {};
  const parts = Object.entries(sel)
    .sort(([a], [b]) => compareGoStrings(a, b))
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length > 0 ? parts.join(',') : '<none>';
}

export const daemonsets = defineResource<DaemonSet>({
  group: 'apps',
  version: 'v1',
  resource: 'daemonsets',
  kind: 'DaemonSet',
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  subresources: ['status'],
  strategy: strategy<DaemonSet>({
    validateStatusUpdate: validateDaemonSetStatusUpdate,
    tracksGeneration: true,
    prepareForCreate: (obj) => {
      obj.status = {};
      prepareTemplateGenerationForCreate(obj);
    },
    prepareForUpdate: prepareTemplateGenerationForUpdate,
    applyDefaults: (obj) => {
      const spec = specObject(obj);
      const update = (spec.updateStrategy ??= {}) as Record<string, unknown>;
      update.type ??= 'RollingUpdate';
      if (update.type === 'RollingUpdate') {
        const ru = (update.rollingUpdate ??= {}) as Record<string, unknown>;
        ru.maxUnavailable ??= 1;
        ru.maxSurge ??= 0;
      }
      spec.revisionHistoryLimit ??= 10;
      defaultTemplate(spec);
    },
    validate: (obj) => validateSelectorAndTemplate(specObject(obj), 'spec', ['Always'], 'daemonset'),
    validateUpdate: validateSelectorUnchanged,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Desired',
      type: 'integer',
      description: 'The total number of nodes that should be running the daemon pod.',
      cell: (o) => num(o, 'status', 'desiredNumberScheduled'),
    },
    {
      name: 'Current',
      type: 'integer',
      description: 'The number of nodes that are running at least 1 daemon pod.',
      cell: (o) => num(o, 'status', 'currentNumberScheduled'),
    },
    {
      name: 'Ready',
      type: 'integer',
      description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
      cell: (o) => num(o, 'status', 'numberReady'),
    },
    {
      name: 'Up-to-date',
      type: 'integer',
      description: 'The total number of nodes that are running updated daemon pod',
      cell: (o) => num(o, 'status', 'updatedNumberScheduled'),
    },
    {
      name: 'Available',
      type: 'integer',
      description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
      cell: (o) => num(o, 'status', 'numberAvailable'),
    },
    { name: 'Node Selector', type: 'string', description: 'NodeSelector is a selector which must be true for the pod to fit on a node.', cell: nodeSelector },
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
  ],
});
