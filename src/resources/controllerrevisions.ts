import { jsonEqual } from '../api/deep-equal';
import type { ControllerRevision } from '../generated/types/apps/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn, stringOf } from '../api/json-read';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

/** apps/v1 ControllerRevision: an immutable snapshot of a workload's state, stored and validated as kube-apiserver does. */

/** ValidateControllerRevision. */
function validateControllerRevision(obj: ControllerRevision): FieldErrorList {
  const errs: FieldErrorList = [];
  if (obj.data === undefined || obj.data === null) errs.push(field.required('data', 'data is mandatory'));
  if (typeof obj.revision === 'number' && obj.revision < 0) errs.push(field.invalid('revision', obj.revision, 'must be greater than or equal to 0'));
  return errs;
}

/** ValidateControllerRevisionUpdate: the data never changes. */
function validateControllerRevisionUpdate(next: ControllerRevision, prev: ControllerRevision): FieldErrorList {
  return jsonEqual(next.data, prev.data) ? [] : [field.invalid('data', next.data ?? null, 'field is immutable')];
}

/** metav1.GetControllerOf shown as formatResourceName: kind.group/name, lower case. */
function controllerCell(obj: ControllerRevision): string {
  const ref = objectsIn(obj.metadata.ownerReferences).find((r) => r.controller === true);
  if (!ref) return '<none>';
  const apiVersion = stringOf(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const kind = stringOf(ref.kind);
  if (!kind && !group) return stringOf(ref.name);
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${stringOf(ref.name)}`;
}

export const controllerrevisions = defineResource<ControllerRevision>({
  group: 'apps',
  version: 'v1',
  resource: 'controllerrevisions',
  kind: 'ControllerRevision',
  namespaced: true,
  strategy: strategy<ControllerRevision>({ validate: validateControllerRevision, validateUpdate: validateControllerRevisionUpdate }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'Controller', type: 'string', description: 'Controller of the object', cell: controllerCell },
    {
      name: 'Revision',
      type: 'string',
      description: 'Revision indicates the revision of the state represented by Data.',
      cell: (o) => (typeof o.revision === 'number' ? o.revision : 0),
    },
    AGE_COLUMN,
  ],
});
