import { jsonEqual } from '../api/deep-equal';
import type { PersistentVolumeClaim } from '../generated/types/core/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf as obj } from '../api/json-read';
import { isDns1123Subdomain, nameIsDnsLabel } from '../api/name-validation';
import { validateLabelSelector } from '../api/meta-validation';
import { compareQuantities, parseQuantity } from '../api/quantity';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import {
  accessModesCell,
  quantityCell,
  storageClassCell,
  unsetCell,
  validateAccessModes,
  validateClassName,
  validatePositiveQuantity,
  validateVolumeMode,
} from './volume-modes';
import { validateClaimStatusUpdate } from './status-validation';
import { jsonClone } from '../api/json-clone';

/** core/v1 PersistentVolumeClaim: stored, defaulted and validated as kube-apiserver does; no controller binds it. */

type Obj = Record<string, unknown>;

const SPEC_IMMUTABLE = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

const spec = (pvc: KubeObject): Obj => (isPlainObject(pvc.spec) ? pvc.spec : ((pvc.spec = {}) as Obj));
const status = (pvc: KubeObject): Obj => obj(pvc.status);
const requestedStorage = (s: Obj): unknown => obj(obj(s.resources).requests).storage;

/** SetDefaults_PersistentVolumeClaim(Spec). */
function defaultClaim(pvc: PersistentVolumeClaim): void {
  spec(pvc).volumeMode ??= 'Filesystem';
  if (isPlainObject(pvc.status)) pvc.status.phase ??= 'Pending';
}

/** validateDataSource and validateDataSourceRef: a name, a kind, and a group unless the kind is a claim. */
function validateDataSource(ref: Obj, path: string, namespaced: boolean): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!ref.name) errs.push(field.required(`${path}.name`));
  if (!ref.kind) errs.push(field.required(`${path}.kind`));
  const apiGroup = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
  if (!apiGroup && ref.kind !== 'PersistentVolumeClaim') {
    errs.push(field.invalid(path, ref.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (apiGroup) for (const msg of isDns1123Subdomain(apiGroup)) errs.push(field.invalid(`${path}.apiGroup`, apiGroup, msg));
  if (namespaced && typeof ref.namespace === 'string' && ref.namespace) {
    for (const msg of nameIsDnsLabel(ref.namespace, false)) errs.push(field.invalid(`${path}.namespace`, ref.namespace, msg));
  }
  return errs;
}

function validateDataSources(s: Obj): FieldErrorList {
  const errs: FieldErrorList = [];
  const source = isPlainObject(s.dataSource) ? s.dataSource : null;
  const ref = isPlainObject(s.dataSourceRef) ? s.dataSourceRef : null;
  if (source) errs.push(...validateDataSource(source, 'spec.dataSource', false));
  if (ref) errs.push(...validateDataSource(ref, 'spec.dataSourceRef', true));
  if (source && ref) {
    if (typeof ref.namespace === 'string' && ref.namespace)
      errs.push(field.invalid('spec', 'spec.dataSource', 'may not be specified when dataSourceRef.namespace is specified'));
    else if (source.apiGroup !== ref.apiGroup || source.kind !== ref.kind || source.name !== ref.name)
      errs.push(field.invalid('spec', 'spec.dataSource', 'must match dataSourceRef'));
  }
  return errs;
}

/** ValidatePersistentVolumeClaimSpec. */
function validateClaim(pvc: PersistentVolumeClaim): FieldErrorList {
  const s = spec(pvc);
  const errs = validateAccessModes(s.accessModes, 'spec.accessModes', 'at least 1 access mode is required');
  if (isPlainObject(s.selector)) errs.push(...validateLabelSelector(s.selector, 'spec.selector'));
  const storage = requestedStorage(s);
  if (storage === undefined || storage === null) errs.push(field.required('spec.resources[storage]'));
  else errs.push(...validatePositiveQuantity(storage, 'spec.resources[storage]'));
  errs.push(
    ...validateClassName(s.storageClassName, 'spec.storageClassName'),
    ...validateVolumeMode(s.volumeMode, 'spec.volumeMode'),
    ...validateDataSources(s),
    ...validateClassName(s.volumeAttributesClassName, 'spec.volumeAttributesClassName'),
  );
  return errs;
}

/**
 * The spec as ValidatePersistentVolumeClaimUpdate compares it: a volume name may be set once, a
 * class may be set where there was none, and a bound claim may change its requested storage and
 * its volume attributes class.
 */
function comparableSpecs(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): [Obj, Obj] {
  const newSpec = jsonClone(spec(next));
  const oldSpec = jsonClone(spec(prev));
  if (!oldSpec.volumeName) oldSpec.volumeName = newSpec.volumeName;
  const oldAnnotation = prev.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (
    typeof newSpec.storageClassName === 'string' &&
    oldSpec.storageClassName === undefined &&
    (oldAnnotation === undefined || oldAnnotation === newSpec.storageClassName)
  ) {
    oldSpec.storageClassName = newSpec.storageClassName;
  }
  if (status(next).phase === 'Bound' && isPlainObject(obj(newSpec.resources).requests)) {
    const requests = obj(obj(newSpec.resources).requests);
    const oldStorage = requestedStorage(oldSpec);
    if (oldStorage === undefined) delete requests.storage;
    else requests.storage = oldStorage;
  }
  newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  for (const s of [newSpec, oldSpec]) if (s.volumeAttributesClassName === undefined) delete s.volumeAttributesClassName;
  return [newSpec, oldSpec];
}

/** Sizes compare by value ("1Gi" is "1024Mi"), as Go's semantic equality compares quantities. */
function sameRequests(a: Obj, b: Obj): boolean {
  const x = obj(obj(a.resources).requests);
  const y = obj(obj(b.resources).requests);
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...keys].every((k) => {
    const p = parseQuantity(x[k]);
    const q = parseQuantity(y[k]);
    return p && q ? compareQuantities(p, q) === 0 : x[k] === y[k];
  });
}

function specsEqual(a: Obj, b: Obj): boolean {
  const withoutRequests = (s: Obj): Obj => ({ ...s, resources: { ...obj(s.resources), requests: undefined } });
  return sameRequests(a, b) && jsonEqual(JSON.parse(JSON.stringify(withoutRequests(a))), JSON.parse(JSON.stringify(withoutRequests(b))));
}

/** ValidatePersistentVolumeClaimUpdate, with RecoverVolumeExpansionFailure on (its default since 1.32). */
function validateClaimUpdate(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): FieldErrorList {
  const errs: FieldErrorList = [];
  const [newSpec, oldSpec] = comparableSpecs(next, prev);
  if (!specsEqual(newSpec, oldSpec)) errs.push(field.forbidden('spec', SPEC_IMMUTABLE));
  const newSize = parseQuantity(requestedStorage(spec(next)));
  const oldSize = parseQuantity(requestedStorage(spec(prev)));
  const statusSize = parseQuantity(obj(status(prev).capacity).storage);
  if (newSize && oldSize && compareQuantities(newSize, oldSize) < 0 && (statusSize ? compareQuantities(newSize, statusSize) <= 0 : false)) {
    errs.push(field.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  if (spec(next).volumeMode !== spec(prev).volumeMode) errs.push(field.invalid('volumeMode', spec(next).volumeMode ?? null, 'field is immutable'));
  const oldClass = spec(prev).volumeAttributesClassName;
  const newClass = spec(next).volumeAttributesClassName;
  if (typeof oldClass === 'string' && newClass !== oldClass) {
    if (newClass === undefined || newClass === null)
      errs.push(field.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
    else if (newClass === '') errs.push(field.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to an empty string is forbidden'));
  }
  return errs;
}

/** printPersistentVolumeClaim: capacity and access modes are the bound volume's, shown once a volume is named. */
function boundCell(pvc: PersistentVolumeClaim, cell: (st: Obj) => string): string {
  return spec(pvc).volumeName ? cell(status(pvc)) : '';
}

export const persistentvolumeclaims = defineResource<PersistentVolumeClaim>({
  group: '',
  version: 'v1',
  resource: 'persistentvolumeclaims',
  kind: 'PersistentVolumeClaim',
  namespaced: true,
  returnDeletedObject: true,
  shortNames: ['pvc'],
  subresources: ['status'],
  strategy: strategy<PersistentVolumeClaim>({
    validateStatusUpdate: validateClaimStatusUpdate,
    prepareForCreate: (pvc) => {
      pvc.status = {};
    },
    applyDefaults: defaultClaim,
    validate: validateClaim,
    validateUpdate: validateClaimUpdate,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Status',
      type: 'string',
      description: 'phase represents the current phase of PersistentVolumeClaim.',
      cell: (pvc) => (pvc.metadata.deletionTimestamp ? 'Terminating' : String(status(pvc).phase ?? '')),
    },
    {
      name: 'Volume',
      type: 'string',
      description: 'volumeName is the binding reference to the PersistentVolume backing this claim.',
      cell: (pvc) => String(spec(pvc).volumeName ?? ''),
    },
    {
      name: 'Capacity',
      type: 'string',
      description: 'capacity represents the actual resources of the underlying volume.',
      cell: (pvc) => boundCell(pvc, (st) => quantityCell(obj(st.capacity).storage)),
    },
    {
      name: 'Access Modes',
      type: 'string',
      description:
        'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1',
      cell: (pvc) => boundCell(pvc, (st) => accessModesCell(st.accessModes)),
    },
    { name: 'StorageClass', type: 'string', description: 'StorageClass of the pvc', cell: (pvc) => storageClassCell(pvc, spec(pvc)) },
    {
      name: 'VolumeAttributesClass',
      type: 'string',
      description: 'VolumeAttributesClass of the pvc',
      cell: (pvc) => unsetCell(spec(pvc).volumeAttributesClassName),
    },
    AGE_COLUMN,
    {
      name: 'VolumeMode',
      type: 'string',
      priority: 1,
      description: 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.',
      cell: (pvc) => unsetCell(spec(pvc).volumeMode),
    },
  ],
});
