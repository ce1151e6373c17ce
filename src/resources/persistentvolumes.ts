import { jsonEqual } from '../api/deep-equal';
import type { PersistentVolume } from '../generated/types/core/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf as obj, stringOf as str } from '../api/json-read';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { nowTimestamp } from '../registry/generic-store';
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
import { jsonClone } from '../api/json-clone';

/** core/v1 PersistentVolume: stored, defaulted and validated as kube-apiserver does; no controller binds or reclaims it. */

type Obj = Record<string, unknown>;

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

/**
 * The volume sources of PersistentVolumeSource in the order ValidatePersistentVolumeSpec checks
 * them, each with the path its "more than 1 volume type" error names (cephfs is "cephFS" there).
 * flexVolume is counted but never refused as a second source, as in kube.
 */
const SOURCES: [key: string, errorPath: string | null][] = [
  ['hostPath', 'hostPath'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['nfs', 'nfs'],
  ['rbd', 'rbd'],
  ['quobyte', 'quobyte'],
  ['cephfs', 'cephFS'],
  ['iscsi', 'iscsi'],
  ['cinder', 'cinder'],
  ['fc', 'fc'],
  ['flexVolume', null],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['scaleIO', 'scaleIO'],
  ['local', 'local'],
  ['storageos', 'storageos'],
  ['csi', 'csi'],
];

const spec = (pv: KubeObject): Obj => (isPlainObject(pv.spec) ? pv.spec : ((pv.spec = {}) as Obj));
const status = (pv: KubeObject): Obj => obj(pv.status);

/** SetDefaults_PersistentVolume and SetDefaults_HostPathVolumeSource. */
function defaultVolume(pv: PersistentVolume): void {
  const s = spec(pv);
  s.persistentVolumeReclaimPolicy ??= 'Retain';
  s.volumeMode ??= 'Filesystem';
  if (isPlainObject(s.hostPath)) s.hostPath.type ??= '';
  if (isPlainObject(pv.status)) pv.status.phase ??= 'Pending';
}

/** The checks of the sources volumes are most often made of; the others get their required fields from the schema. */
function validateSource(key: string, source: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const need = (name: string): void => {
    if (!str(source[name])) errs.push(field.required(`${path}.${name}`));
  };
  switch (key) {
    case 'hostPath':
      need('path');
      if (str(source.path).split('/').includes('..')) errs.push(field.invalid(`${path}.path`, source.path, "must not contain '..'"));
      break;
    case 'nfs':
      need('server');
      need('path');
      if (str(source.path) && !str(source.path).startsWith('/')) errs.push(field.invalid(`${path}.path`, source.path, 'must be an absolute path'));
      break;
    case 'local':
      need('path');
      break;
    case 'csi':
      need('driver');
      need('volumeHandle');
      break;
  }
  return errs;
}

function validateSources(s: Obj): FieldErrorList {
  const errs: FieldErrorList = [];
  let count = 0;
  for (const [key, errorPath] of SOURCES) {
    if (!isPlainObject(s[key])) continue;
    if (count > 0 && errorPath) {
      errs.push(field.forbidden(`spec.${errorPath}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...validateSource(key, s[key] as Obj, `spec.${key}`));
    if (key === 'local' && !isPlainObject(s.nodeAffinity)) errs.push(field.required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (count === 0) errs.push(field.required('spec', 'must specify a volume type'));
  return errs;
}

function validateCapacity(capacity: unknown): FieldErrorList {
  const entries = Object.entries(obj(capacity));
  const errs: FieldErrorList = entries.length === 0 ? [field.required('spec.capacity')] : [];
  if (!entries.some(([k]) => k === 'storage') || entries.length > 1) errs.push(field.notSupported('spec.capacity', capacity ?? null, ['storage']));
  for (const [k, v] of entries) errs.push(...validatePositiveQuantity(v, `spec.capacity[${k}]`));
  return errs;
}

/** ValidatePersistentVolumeSpec for a stored (not inline) volume. */
function validateVolume(pv: PersistentVolume): FieldErrorList {
  const s = spec(pv);
  const errs = validateAccessModes(s.accessModes, 'spec.accessModes', '');
  errs.push(...validateCapacity(s.capacity));
  const policy = s.persistentVolumeReclaimPolicy;
  if (typeof policy === 'string' && policy && !RECLAIM_POLICIES.includes(policy)) {
    errs.push(field.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  }
  errs.push(...validateSources(s));
  if (/^\/+$/.test(str(obj(s.hostPath).path)) && policy === 'Recycle') {
    errs.push(field.forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  errs.push(...validateClassName(s.storageClassName, 'spec.storageClassName'), ...validateVolumeMode(s.volumeMode, 'spec.volumeMode'));
  if (typeof s.volumeAttributesClassName === 'string') {
    if (s.volumeAttributesClassName === '') errs.push(field.required('spec.volumeAttributesClassName', 'an empty string is disallowed'));
    else errs.push(...validateClassName(s.volumeAttributesClassName, 'spec.volumeAttributesClassName'));
    if (!isPlainObject(s.csi)) errs.push(field.required('spec.csi', 'has to be specified when using volumeAttributesClassName'));
  }
  return errs;
}

/** The PersistentVolumeSource part of a spec: every source field. */
function volumeSource(s: Obj): Obj {
  return Object.fromEntries(SOURCES.filter(([key]) => s[key] !== undefined).map(([key]) => [key, s[key]]));
}

/** ValidatePersistentVolumeUpdate: the source is fixed, except that a CSI volume may gain a controllerExpandSecretRef. */
function validateVolumeUpdate(next: PersistentVolume, prev: PersistentVolume): FieldErrorList {
  const errs: FieldErrorList = [];
  const newSource = jsonClone(volumeSource(spec(next)));
  const oldSource = volumeSource(spec(prev));
  if (isPlainObject(oldSource.csi) && oldSource.csi.controllerExpandSecretRef === undefined && isPlainObject(newSource.csi)) {
    delete newSource.csi.controllerExpandSecretRef;
  }
  if (!jsonEqual(newSource, oldSource)) errs.push(field.forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  if (spec(next).volumeMode !== spec(prev).volumeMode) errs.push(field.invalid('volumeMode', spec(next).volumeMode ?? null, 'field is immutable'));
  if (typeof spec(prev).volumeAttributesClassName === 'string' && typeof spec(next).volumeAttributesClassName !== 'string') {
    errs.push(field.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
  }
  return errs;
}

/** The status strategy stamps a phase change the client did not time itself. */
function stampPhaseTransition(next: PersistentVolume, prev: PersistentVolume): void {
  if (!isPlainObject(next.status)) return;
  const newStatus = next.status;
  const oldStatus = status(prev);
  if (newStatus.phase === oldStatus.phase) newStatus.lastPhaseTransitionTime ??= oldStatus.lastPhaseTransitionTime;
  else if (newStatus.lastPhaseTransitionTime === undefined || newStatus.lastPhaseTransitionTime === oldStatus.lastPhaseTransitionTime) {
    newStatus.lastPhaseTransitionTime = nowTimestamp();
  }
  if (newStatus.lastPhaseTransitionTime === undefined) delete newStatus.lastPhaseTransitionTime;
}

function claimCell(pv: PersistentVolume): string {
  const ref = spec(pv).claimRef;
  return isPlainObject(ref) ? `${str(ref.namespace)}/${str(ref.name)}` : '';
}

export const persistentvolumes = defineResource<PersistentVolume>({
  group: '',
  version: 'v1',
  resource: 'persistentvolumes',
  kind: 'PersistentVolume',
  namespaced: false,
  returnDeletedObject: true,
  shortNames: ['pv'],
  subresources: ['status'],
  strategy: strategy<PersistentVolume>({
    prepareForCreate: (pv) => {
      pv.status = { phase: 'Pending', lastPhaseTransitionTime: nowTimestamp() };
    },
    applyDefaults: defaultVolume,
    validate: validateVolume,
    validateUpdate: validateVolumeUpdate,
    prepareForStatusUpdate: stampPhaseTransition,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Capacity',
      type: 'string',
      description:
        "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
      cell: (pv) => quantityCell(obj(spec(pv).capacity).storage),
    },
    {
      name: 'Access Modes',
      type: 'string',
      description:
        'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes',
      cell: (pv) => accessModesCell(spec(pv).accessModes),
    },
    {
      name: 'Reclaim Policy',
      type: 'string',
      description:
        'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming',
      cell: (pv) => str(spec(pv).persistentVolumeReclaimPolicy),
    },
    {
      name: 'Status',
      type: 'string',
      description:
        'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase',
      cell: (pv) => (pv.metadata.deletionTimestamp ? 'Terminating' : str(status(pv).phase)),
    },
    {
      name: 'Claim',
      type: 'string',
      description:
        'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding',
      cell: claimCell,
    },
    { name: 'StorageClass', type: 'string', description: 'StorageClass of the pv', cell: (pv) => storageClassCell(pv, spec(pv)) },
    {
      name: 'VolumeAttributesClass',
      type: 'string',
      description: 'VolumeAttributesClass of the pv',
      cell: (pv) => unsetCell(spec(pv).volumeAttributesClassName),
    },
    {
      name: 'Reason',
      type: 'string',
      description: 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
      cell: (pv) => str(status(pv).reason),
    },
    AGE_COLUMN,
    {
      name: 'VolumeMode',
      type: 'string',
      priority: 1,
      description:
        'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.',
      cell: (pv) => unsetCell(spec(pv).volumeMode),
    },
  ],
});
