import { field, type FieldErrorList } from '../api/field-errors';
import type { ResourceQuota } from '../generated/types/core/v1';
import { objectOf, stringsIn } from '../api/json-read';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { quantityText, validateNonNegativeQuantities } from './resource-lists';
import { compareGoStrings } from '../api/go-string-order';

/** core/v1 ResourceQuota: stored and validated as kube-apiserver does, with its status; nothing enforces or counts it. */

const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'];

/** ValidateResourceQuotaSpec's essentials: quantities not negative, known scopes. */
function validateResourceQuota(obj: ResourceQuota): FieldErrorList {
  const spec = objectOf(obj.spec);
  const errs = validateNonNegativeQuantities(spec.hard, 'spec.hard');
  for (const scope of stringsIn(spec.scopes)) if (!SCOPES.includes(scope)) errs.push(field.invalid('spec.scopes', scope, 'unsupported scope'));
  return errs;
}

/** ValidateResourceQuotaStatusUpdate: hard and used not negative. */
function validateResourceQuotaStatus(obj: ResourceQuota): FieldErrorList {
  const status = objectOf(obj.status);
  return [...validateNonNegativeQuantities(status.hard, 'status.hard'), ...validateNonNegativeQuantities(status.used, 'status.used')];
}

/** printResourceQuota: "resource: used/hard" for each resource in status.hard, limits.* in their own column. */
function usage(obj: ResourceQuota, limits: boolean): string {
  const status = objectOf(obj.status);
  const used = objectOf(status.used);
  return Object.entries(objectOf(status.hard))
    .sort(([a], [b]) => compareGoStrings(a, b))
    .filter(([name]) => (name.split('.').length > 1 && name.split('.')[0] === 'limits') === limits)
    .map(([name, hard]) => `${name}: ${quantityText(used[name])}/${quantityText(hard)}`)
    .join(', ');
}

export const resourcequotas = defineResource<ResourceQuota>({
  group: '',
  version: 'v1',
  resource: 'resourcequotas',
  kind: 'ResourceQuota',
  namespaced: true,
  shortNames: ['quota'],
  subresources: ['status'],
  strategy: strategy<ResourceQuota>({
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    validate: validateResourceQuota,
    validateStatusUpdate: validateResourceQuotaStatus,
  }),
  printerColumns: [
    NAME_COLUMN,
    AGE_COLUMN,
    {
      name: 'Request',
      type: 'string',
      description: 'Request represents a minimum amount of cpu/memory that a container may consume.',
      cell: (o) => usage(o, false),
    },
    {
      name: 'Limit',
      type: 'string',
      description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      cell: (o) => usage(o, true),
    },
  ],
});
