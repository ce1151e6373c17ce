import { jsonEqual } from '../api/deep-equal';
import type { ResourceClaimTemplate } from '../generated/types/resource/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { defaultDeviceClaim, validateDeviceClaim } from './device-claim-spec';

/** resource.k8s.io/v1 ResourceClaimTemplate: stored, defaulted and validated as kube-apiserver does. */

const devicesOf = (obj: KubeObject): unknown => objectOf(objectOf(obj.spec).spec).devices;

/** ValidateResourceClaimTemplateUpdate: the spec is immutable. */
function validateTemplateUpdate(next: ResourceClaimTemplate, prev: ResourceClaimTemplate): FieldErrorList {
  return jsonEqual(next.spec, prev.spec) ? [] : [field.invalid('spec', next.spec, 'field is immutable')];
}

export const resourceclaimtemplates = defineResource<ResourceClaimTemplate>({
  group: 'resource.k8s.io',
  version: 'v1',
  resource: 'resourceclaimtemplates',
  kind: 'ResourceClaimTemplate',
  namespaced: true,
  strategy: strategy<ResourceClaimTemplate>({
    applyDefaults: (obj) => defaultDeviceClaim(devicesOf(obj)),
    validate: (obj) => validateDeviceClaim(devicesOf(obj), 'spec.spec.devices'),
    validateUpdate: validateTemplateUpdate,
  }),
  printerColumns: [NAME_COLUMN, AGE_COLUMN],
});
