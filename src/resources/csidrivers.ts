import { jsonEqual } from '../api/deep-equal';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf, objectsIn, stringOf, stringsIn } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateCsiDriverName } from './csi-names';

/** storage.k8s.io/v1 CSIDriver: stored, defaulted and validated as kube-apiserver does. */

const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const FS_GROUP_POLICIES = ['ReadWriteOnceWithFSType', 'File', 'None'];

type Obj = Record<string, unknown>;
const specOf = (obj: KubeObject): Obj => {
  if (typeof obj.spec !== 'object' || obj.spec === null || Array.isArray(obj.spec)) obj.spec = {};
  return obj.spec as Obj;
};

/** SetDefaults_CSIDriver. */
function defaultCsiDriver(obj: KubeObject): void {
  const spec = specOf(obj);
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (stringsIn(spec.volumeLifecycleModes).length === 0) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

/** ValidateCSIDriver's essentials. */
function validateCsiDriver(obj: KubeObject): FieldErrorList {
  const spec = objectOf(obj.spec);
  const errs = validateCsiDriverName(obj.metadata.name ?? '', 'name');
  if (typeof spec.attachRequired !== 'boolean') errs.push(field.required('spec.attachRequired'));
  if (typeof spec.podInfoOnMount !== 'boolean') errs.push(field.required('spec.podInfoOnMount'));
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(stringOf(spec.fsGroupPolicy))) {
    errs.push(field.notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  for (const mode of stringsIn(spec.volumeLifecycleModes)) {
    if (!LIFECYCLE_MODES.includes(mode)) errs.push(field.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  }
  const audiences = new Set<string>();
  objectsIn(spec.tokenRequests).forEach((t, i) => {
    const audience = stringOf(t.audience);
    if (audiences.has(audience)) errs.push(field.duplicate(`spec.tokenRequests[${i}].audience`, audience));
    audiences.add(audience);
    if (typeof t.expirationSeconds === 'number' && t.expirationSeconds < 600) {
      errs.push(field.invalid(`spec.tokenRequests[${i}].expirationSeconds`, t.expirationSeconds, 'may not specify a duration less than 10 minutes'));
    }
  });
  return errs;
}

/** ValidateCSIDriverUpdate: what the attach/detach and mount paths rely on never changes. */
function validateCsiDriverUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const a = objectOf(next.spec);
  const b = objectOf(prev.spec);
  const errs: FieldErrorList = [];
  for (const key of ['attachRequired', 'fsGroupPolicy', 'volumeLifecycleModes']) {
    if (!jsonEqual(a[key], b[key])) errs.push(field.invalid(`spec.${key}`, a[key] ?? null, 'field is immutable'));
  }
  return errs;
}

const bool = (o: KubeObject, key: string): boolean => objectOf(o.spec)[key] === true;

export const csidrivers = defineResource({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csidrivers',
  kind: 'CSIDriver',
  namespaced: false,
  strategy: strategy({ applyDefaults: defaultCsiDriver, validate: validateCsiDriver, validateUpdate: validateCsiDriverUpdate }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'AttachRequired', type: 'boolean', description: 'attachRequired indicates this CSI volume driver requires an attach operation.', cell: (o) => bool(o, 'attachRequired') },
    { name: 'PodInfoOnMount', type: 'boolean', description: 'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.', cell: (o) => bool(o, 'podInfoOnMount') },
    { name: 'StorageCapacity', type: 'boolean', description: 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.', cell: (o) => bool(o, 'storageCapacity') },
    {
      name: 'TokenRequests',
      type: 'string',
      description: 'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication.',
      cell: (o) => {
        const audiences = objectsIn(objectOf(o.spec).tokenRequests).map((t) => stringOf(t.audience));
        return audiences.length > 0 ? audiences.join(',') : '<unset>';
      },
    },
    { name: 'RequiresRepublish', type: 'boolean', description: 'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.', cell: (o) => bool(o, 'requiresRepublish') },
    {
      name: 'Modes',
      type: 'string',
      description: 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.',
      cell: (o) => {
        const modes = stringsIn(objectOf(o.spec).volumeLifecycleModes);
        return modes.length > 0 ? modes.join(',') : '<none>';
      },
    },
    AGE_COLUMN,
  ],
});
