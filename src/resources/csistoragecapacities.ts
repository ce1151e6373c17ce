import { jsonEqual } from '../api/deep-equal';
import type { CSIStorageCapacity } from '../generated/types/storage/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { stringOf } from '../api/json-read';
import { validateLabelSelector } from '../api/meta-validation';
import { isDns1123Subdomain } from '../api/name-validation';
import { compareQuantities, parseQuantity, ZERO_QUANTITY } from '../api/quantity';
import { isPlainObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { NAME_COLUMN } from '../registry/table';

/** storage.k8s.io/v1 CSIStorageCapacity: what a CSI driver publishes of its capacity, stored and validated as kube-apiserver does. */

/** ValidateCSIStorageCapacity: a valid topology selector, a class name, capacity not negative. */
function validateCsiStorageCapacity(obj: CSIStorageCapacity): FieldErrorList {
  const className = stringOf(obj.storageClassName);
  const errs: FieldErrorList = isPlainObject(obj.nodeTopology) ? validateLabelSelector(obj.nodeTopology, 'nodeTopology') : [];
  errs.push(...isDns1123Subdomain(className).map((msg) => field.invalid('storageClassName', className, msg)));
  const q = parseQuantity(obj.capacity);
  if (q && compareQuantities(q, ZERO_QUANTITY) < 0) errs.push(field.invalid('capacity', obj.capacity, 'must be greater than or equal to 0'));
  return errs;
}

/** ValidateCSIStorageCapacityUpdate: the inputs of the CSI GetCapacity call are fixed. */
function validateCsiStorageCapacityUpdate(next: CSIStorageCapacity, prev: CSIStorageCapacity): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!jsonEqual(next.nodeTopology, prev.nodeTopology)) errs.push(field.invalid('nodeTopology', next.nodeTopology ?? null, 'field is immutable'));
  if (next.storageClassName !== prev.storageClassName) errs.push(field.invalid('storageClassName', next.storageClassName ?? '', 'field is immutable'));
  return errs;
}

export const csistoragecapacities = defineResource<CSIStorageCapacity>({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csistoragecapacities',
  kind: 'CSIStorageCapacity',
  namespaced: true,
  strategy: strategy<CSIStorageCapacity>({ validate: validateCsiStorageCapacity, validateUpdate: validateCsiStorageCapacityUpdate }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'StorageClassName',
      type: 'string',
      description: 'storageClassName represents the name of the StorageClass that the reported capacity applies to.',
      cell: (o) => stringOf(o.storageClassName),
    },
    {
      name: 'Capacity',
      type: 'string',
      description:
        'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.',
      cell: (o) => (o.capacity === undefined || o.capacity === null ? '<unset>' : String(o.capacity)),
    },
  ],
});
