import { jsonEqual } from '../api/deep-equal';
import type { StorageClass } from '../generated/types/storage/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { stringOf as str } from '../api/json-read';
import { isQualifiedName } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

/** storage.k8s.io/v1 StorageClass: stored, defaulted and validated as kube-apiserver does; no provisioner acts on it. */

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

const parameters = (sc: KubeObject): Record<string, unknown> => (isPlainObject(sc.parameters) ? sc.parameters : {});

/** SetDefaults_StorageClass. */
function defaultStorageClass(sc: StorageClass): void {
  sc.reclaimPolicy ??= 'Delete';
  sc.volumeBindingMode ??= 'Immediate';
}

function validateProvisioner(provisioner: string): FieldErrorList {
  if (!provisioner) return [field.required('provisioner')];
  const lower = provisioner.toLowerCase();
  return isQualifiedName(lower).map((msg) => field.invalid('provisioner', lower, msg));
}

function validateParameters(params: Record<string, unknown>): FieldErrorList {
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMETERS) return [field.tooLong('parameters', MAX_PARAMETERS)];
  const errs: FieldErrorList = entries.filter(([k]) => k === '').map(() => field.invalid('parameters', '', 'field can not be empty.'));
  const size = entries.reduce((total, [k, v]) => total + Buffer.byteLength(k) + Buffer.byteLength(str(v)), 0);
  if (size > MAX_PARAMETERS_SIZE) errs.push(field.tooLong('parameters', MAX_PARAMETERS_SIZE));
  return errs;
}

/** ValidateStorageClass (allowedTopologies' terms are left to the schema). */
function validateStorageClass(sc: StorageClass): FieldErrorList {
  const errs = [...validateProvisioner(str(sc.provisioner)), ...validateParameters(parameters(sc))];
  if (str(sc.reclaimPolicy) && !RECLAIM_POLICIES.includes(str(sc.reclaimPolicy)))
    errs.push(field.notSupported('reclaimPolicy', sc.reclaimPolicy, RECLAIM_POLICIES));
  if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) errs.push(field.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(str(sc.volumeBindingMode))) errs.push(field.notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  return errs;
}

/** ValidateStorageClassUpdate: what provisions volumes is fixed once the class exists. */
function validateStorageClassUpdate(next: StorageClass, prev: StorageClass): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!jsonEqual(parameters(next), parameters(prev))) errs.push(field.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (next.provisioner !== prev.provisioner) errs.push(field.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (next.reclaimPolicy !== prev.reclaimPolicy) errs.push(field.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (next.volumeBindingMode !== prev.volumeBindingMode) errs.push(field.invalid('volumeBindingMode', next.volumeBindingMode ?? null, 'field is immutable'));
  return errs;
}

/** IsDefaultAnnotation: kubectl marks the default class after its name. */
function nameCell(sc: StorageClass): string {
  const annotations = sc.metadata.annotations ?? {};
  const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((a) => annotations[a] === 'true');
  return isDefault ? `${sc.metadata.name ?? ''} (default)` : (sc.metadata.name ?? '');
}

export const storageclasses = defineResource<StorageClass>({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'storageclasses',
  kind: 'StorageClass',
  namespaced: false,
  returnDeletedObject: true,
  shortNames: ['sc'],
  strategy: strategy<StorageClass>({
    applyDefaults: defaultStorageClass,
    validate: validateStorageClass,
    validateUpdate: validateStorageClassUpdate,
  }),
  printerColumns: [
    { ...NAME_COLUMN, cell: nameCell },
    { name: 'Provisioner', type: 'string', description: 'provisioner indicates the type of the provisioner.', cell: (sc) => str(sc.provisioner) },
    {
      name: 'ReclaimPolicy',
      type: 'string',
      description: 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
      cell: (sc) => str(sc.reclaimPolicy) || 'Delete',
    },
    {
      name: 'VolumeBindingMode',
      type: 'string',
      description:
        'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
      cell: (sc) => str(sc.volumeBindingMode) || 'Immediate',
    },
    {
      name: 'AllowVolumeExpansion',
      type: 'string',
      description: 'allowVolumeExpansion shows whether the storage class allow volume expand.',
      cell: (sc) => sc.allowVolumeExpansion === true,
    },
    AGE_COLUMN,
  ],
});
