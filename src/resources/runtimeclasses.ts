import { field, type FieldErrorList } from '../api/field-errors';
import type { RuntimeClass } from '../generated/types/node/v1';
import { stringOf } from '../api/json-read';
import { isDns1123Label } from '../api/name-validation';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

/** node.k8s.io/v1 RuntimeClass: stored and validated as kube-apiserver does. */

/** ValidateRuntimeClass: the handler is a DNS label. */
function validateRuntimeClass(obj: RuntimeClass): FieldErrorList {
  const handler = stringOf(obj.handler);
  if (!handler) return [field.required('handler')];
  return isDns1123Label(handler).map((msg) => field.invalid('handler', handler, msg));
}

/** ValidateRuntimeClassUpdate: the handler is immutable. */
function validateRuntimeClassUpdate(next: RuntimeClass, prev: RuntimeClass): FieldErrorList {
  return next.handler === prev.handler ? [] : [field.invalid('handler', next.handler ?? null, 'field is immutable')];
}

export const runtimeclasses = defineResource<RuntimeClass>({
  group: 'node.k8s.io',
  version: 'v1',
  resource: 'runtimeclasses',
  kind: 'RuntimeClass',
  namespaced: false,
  strategy: strategy<RuntimeClass>({ validate: validateRuntimeClass, validateUpdate: validateRuntimeClassUpdate }),
  printerColumns: [
    NAME_COLUMN,
    // kube describes it with ObjectMeta's (absent) doc of "handler": empty.
    { name: 'Handler', type: 'string', description: '', cell: (o) => stringOf(o.handler) },
    AGE_COLUMN,
  ],
});
