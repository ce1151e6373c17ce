import { field, type FieldErrorList } from '../api/field-errors';
import type { Namespace } from '../generated/types/core/v1';
import { isQualifiedName, nameIsDnsLabel } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { namespaceFinalizersForDeletion } from '../registry/deletion-finalizers';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateNamespaceStatusUpdate } from './status-validation';

type Obj = Record<string, unknown>;

export const NAMESPACE_FINALIZER = 'kubernetes';

export function namespaceFinalizers(ns: KubeObject): string[] {
  const spec = isPlainObject(ns.spec) ? ns.spec : {};
  return Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
}

function validateFinalizers(ns: Namespace): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const f of namespaceFinalizers(ns)) {
    for (const msg of isQualifiedName(f)) errs.push(field.invalid('spec.finalizers', f, msg));
  }
  return errs;
}

export const namespaces = defineResource<Namespace>({
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status', 'finalize'],
  returnDeletedObject: true,
  strategy: strategy<Namespace>({
    validateStatusUpdate: validateNamespaceStatusUpdate,
    validateName: nameIsDnsLabel,
    prepareForCreate: (ns) => {
      ns.status = { phase: 'Active' };
      const spec = (isPlainObject(ns.spec) ? ns.spec : (ns.spec = {})) as Obj;
      const finalizers = namespaceFinalizers(ns);
      if (!finalizers.includes(NAMESPACE_FINALIZER)) spec.finalizers = [...finalizers, NAMESPACE_FINALIZER];
    },
    applyDefaults: (ns) => {
      if (ns.metadata.name) ns.metadata.labels = { ...ns.metadata.labels, 'kubernetes.io/metadata.name': ns.metadata.name };
    },
    validate: validateFinalizers,
    finalizing: (ns) => namespaceFinalizers(ns).length > 0,
    startTermination: (ns, opts) => {
      ns.status = { ...(isPlainObject(ns.status) ? ns.status : {}), phase: 'Terminating' };
      const finalizers = namespaceFinalizersForDeletion(ns.metadata.finalizers ?? [], opts);
      if (finalizers.length > 0) ns.metadata.finalizers = finalizers;
      else delete ns.metadata.finalizers;
    },
  }),
  fieldLabelConversion: { namespaceLabel: false },
  selectableFields: {
    'status.phase': (ns) => String((isPlainObject(ns.status) ? ns.status.phase : '') ?? ''),
  },
  printerColumns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'The status of the namespace', cell: (ns) => (isPlainObject(ns.status) ? ns.status.phase : '') ?? '' },
    AGE_COLUMN,
  ],
});
