import { jsonEqual } from '../api/deep-equal';
import type { VolumeAttributesClass } from '../generated/types/storage/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf, stringOf } from '../api/json-read';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateProvisionerName } from './csi-names';

/** storage.k8s.io/v1 VolumeAttributesClass: stored and validated as kube-apiserver does; no driver acts on it. */

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

/** validateParameters with allowEmpty false. */
function validateParameters(params: Record<string, unknown>): FieldErrorList {
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMETERS) return [field.tooLong('parameters', MAX_PARAMETERS)];
  const errs: FieldErrorList = entries.filter(([k]) => k === '').map(() => field.invalid('parameters', '', 'field can not be empty.'));
  const size = entries.reduce((total, [k, v]) => total + Buffer.byteLength(k) + Buffer.byteLength(stringOf(v)), 0);
  if (size > MAX_PARAMETERS_SIZE) errs.push(field.tooLong('parameters', MAX_PARAMETERS_SIZE));
  if (entries.length === 0) errs.push(field.required('parameters', 'must contain at least one key/value pair'));
  return errs;
}

/** ValidateVolumeAttributesClass. */
function validateVolumeAttributesClass(obj: VolumeAttributesClass): FieldErrorList {
  return [...validateProvisionerName(stringOf(obj.driverName), 'driverName'), ...validateParameters(objectOf(obj.parameters))];
}

/** ValidateVolumeAttributesClassUpdate: driver and parameters are fixed. */
function validateVolumeAttributesClassUpdate(next: VolumeAttributesClass, prev: VolumeAttributesClass): FieldErrorList {
  const errs: FieldErrorList = [];
  if (next.driverName !== prev.driverName) errs.push(field.forbidden('driverName', 'updates to driverName are forbidden.'));
  if (!jsonEqual(objectOf(next.parameters), objectOf(prev.parameters))) errs.push(field.forbidden('parameters', 'updates to parameters are forbidden.'));
  return errs;
}

export const volumeattributesclasses = defineResource<VolumeAttributesClass>({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'volumeattributesclasses',
  kind: 'VolumeAttributesClass',
  namespaced: false,
  shortNames: ['vac'],
  strategy: strategy<VolumeAttributesClass>({ validate: validateVolumeAttributesClass, validateUpdate: validateVolumeAttributesClassUpdate }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'DriverName', type: 'string', description: 'Name of the CSI driver This field is immutable.', cell: (o) => stringOf(o.driverName) },
    AGE_COLUMN,
  ],
});
