import { field, type FieldErrorList } from '../api/field-errors';
import type { DeviceClass } from '../generated/types/resource/v1';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

/** resource.k8s.io/v1 DeviceClass: stored and validated as kube-apiserver does (cluster-scoped, spec tracked by generation). */

const MAX_SELECTORS = 32;

/** ValidateDeviceClass's essentials: at most 32 selectors, each with a CEL expression. */
function validateDeviceClass(obj: DeviceClass): FieldErrorList {
  const selectors = objectsIn(objectOf(obj.spec).selectors);
  const errs: FieldErrorList = selectors.length > MAX_SELECTORS ? [field.tooMany('spec.selectors', selectors.length, MAX_SELECTORS)] : [];
  selectors.forEach((s, i) => {
    if (!stringOf(objectOf(s.cel).expression)) errs.push(field.required(`spec.selectors[${i}].cel${s.cel ? '.expression' : ''}`, ''));
  });
  return errs;
}

export const deviceclasses = defineResource<DeviceClass>({
  group: 'resource.k8s.io',
  version: 'v1',
  resource: 'deviceclasses',
  kind: 'DeviceClass',
  namespaced: false,
  strategy: strategy<DeviceClass>({ tracksGeneration: true, validate: validateDeviceClass }),
  printerColumns: [NAME_COLUMN, AGE_COLUMN],
});
