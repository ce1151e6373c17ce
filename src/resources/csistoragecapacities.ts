import { field, type FieldErrorList } from '../api/field-errors';
import { stringOf } from '../api/json-read';
import { validateLabelSelector } from '../api/meta-validation';
import { isDns1123Subdomain } from '../api/name-validation';
import { compareQuantities, parseQuantity, ZERO_QUANTITY } from '../api/quantity';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { NAME_COLUMN } from '../registry/table';

/** storage.k8s.io/v1 CSIStorageCapacity: what a CSI driver publishes of its capacity, stored and validated as kube-apiserver does. */

function nonNegative(value: unknown, path: string): FieldErrorList {
  const q = parseQuantity(value);
  return q && compareQuantities(q, ZERO_QUANTITY) < 0 ? [field.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** ValidateCSIStorageCapacity. */
function validateCsiStorageCapacity(obj: KubeObject): FieldErrorList {
  const className = stringOf(obj.storageClassName);
  const errs: FieldErrorList = className ? isDns1123Subdomain(className).map((msg) => field.invalid('storageClassName', className, msg)) : [field.required('storageClassName')];
  if (isPlainObject(obj.nodeTopology)) errs.push(...validateLabelSelector(obj.nodeTopology, 'nodeTopology'));
  errs.push(...nonNegative(obj.capacity, 'capacity'), ...nonNegative(obj.maximumVolumeSize, 'maximumVolumeSize'));
  return errs;
}

export const csistoragecapacities = defineResource({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csistoragecapacities',
  kind: 'CSIStorageCapacity',
  namespaced: true,
  strategy: strategy({ validate: validateCsiStorageCapacity }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'StorageClassName', type: 'string', description: 'storageClassName represents the name of the StorageClass that the reported capacity applies to.', cell: (o) => stringOf(o.storageClassName) },
    { name: 'Capacity', type: 'string', description: 'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.', cell: (o) => (o.capacity === undefined || o.capacity === null ? '<unset>' : String(o.capacity)) },
  ],
});
