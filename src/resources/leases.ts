import { field, type FieldErrorList } from '../api/field-errors';
import type { Lease } from '../generated/types/coordination/v1';
import { isPlainObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

function validateLease(lease: Lease): FieldErrorList {
  const spec = isPlainObject(lease.spec) ? lease.spec : {};
  const errs: FieldErrorList = [];
  if (spec.leaseDurationSeconds !== undefined && (typeof spec.leaseDurationSeconds !== 'number' || spec.leaseDurationSeconds <= 0)) {
    errs.push(field.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && (typeof spec.leaseTransitions !== 'number' || spec.leaseTransitions < 0)) {
    errs.push(field.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return errs;
}

export const leases = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
  strategy: strategy<Lease>({
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: false,
    validate: validateLease,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Holder',
      type: 'string',
      description: 'holderIdentity contains the identity of the holder of a current lease.',
      cell: (l) => (isPlainObject(l.spec) ? (l.spec.holderIdentity ?? '') : ''),
    },
    AGE_COLUMN,
  ],
});
