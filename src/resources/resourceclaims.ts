import { jsonEqual } from '../api/deep-equal';
import type { ResourceClaim } from '../generated/types/resource/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf, objectsIn } from '../api/json-read';
import { isPlainObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { defaultDeviceClaim, validateDeviceClaim } from './device-claim-spec';

/** resource.k8s.io/v1 ResourceClaim: stored, defaulted and validated as kube-apiserver does, with its status; no allocator acts on it. */

/** resourceClaimState (printers.go): deleted, pending, allocated, reserved. */
function claimState(claim: ResourceClaim): string {
  const status = objectOf(claim.status);
  const states: string[] = [];
  if (claim.metadata.deletionTimestamp) states.push('deleted');
  if (!isPlainObject(status.allocation)) {
    if (!claim.metadata.deletionTimestamp) states.push('pending');
  } else {
    states.push('allocated');
    if (objectsIn(status.reservedFor).length > 0) states.push('reserved');
  }
  return states.join(',');
}

/** ValidateResourceClaimUpdate: the spec is immutable. */
function validateClaimUpdate(next: ResourceClaim, prev: ResourceClaim): FieldErrorList {
  return jsonEqual(next.spec, prev.spec) ? [] : [field.invalid('spec', next.spec, 'field is immutable')];
}

/** ValidateResourceClaimStatusUpdate's essentials: reservedFor names each consumer once, and only an allocated claim is reserved. */
function validateClaimStatusUpdate(next: ResourceClaim): FieldErrorList {
  const status = objectOf(next.status);
  const reserved = objectsIn(status.reservedFor);
  const errs: FieldErrorList = [];
  const uids = new Set<string>();
  reserved.forEach((r, i) => {
    const uid = String(r.uid ?? '');
    if (uids.has(uid)) errs.push(field.duplicate(`status.reservedFor[${i}].uid`, uid));
    uids.add(uid);
  });
  if (reserved.length > 0 && !isPlainObject(status.allocation))
    errs.push(field.forbidden('status.reservedFor', 'may not be specified when `allocated` is not set'));
  return errs;
}

export const resourceclaims = defineResource<ResourceClaim>({
  group: 'resource.k8s.io',
  version: 'v1',
  resource: 'resourceclaims',
  kind: 'ResourceClaim',
  namespaced: true,
  subresources: ['status'],
  strategy: strategy<ResourceClaim>({
    tracksGeneration: true,
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    applyDefaults: (obj) => defaultDeviceClaim(objectOf(obj.spec).devices),
    validate: (obj) => validateDeviceClaim(objectOf(obj.spec).devices, 'spec.devices'),
    validateUpdate: validateClaimUpdate,
    validateStatusUpdate: validateClaimStatusUpdate,
  }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'State', type: 'string', description: 'A summary of the current state (allocated, pending, reserved, etc.).', cell: claimState },
    AGE_COLUMN,
  ],
});
