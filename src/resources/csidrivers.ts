import { jsonEqual } from '../api/deep-equal';
import type { CSIDriver } from '../generated/types/storage/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf, objectsIn, stringOf, stringsIn } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

/** storage.k8s.io/v1 CSIDriver: stored, defaulted and validated as kube-apiserver does. */

const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const FS_GROUP_POLICIES = ['ReadWriteOnceWithFSType', 'File', 'None'];

type Obj = Record<string, unknown>;
const specOf = (obj: KubeObject): Obj => {
  if (typeof obj.spec !== 'object' || obj.spec === null || Array.isArray(obj.spec)) obj.spec = {};
  return obj.spec as Obj;
};

/** SetDefaults_CSIDriver. */
function defaultCsiDriver(obj: CSIDriver): void {
  const spec = specOf(obj);
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (stringsIn(spec.volumeLifecycleModes).length === 0) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 2 ** 32;

function required(spec: Obj, key: string, path: string): FieldErrorList {
  return typeof spec[key] === 'boolean' ? [] : [field.required(path)];
}

/** validateTokenRequests: audiences once each, lifetimes between 10 minutes and 2^32 seconds. */
function validateTokenRequests(spec: Obj): FieldErrorList {
  const errs: FieldErrorList = [];
  const audiences = new Set<string>();
  objectsIn(spec.tokenRequests).forEach((t, i) => {
    const path = `spec.tokenRequests[${i}]`;
    const audience = stringOf(t.audience);
    if (audiences.has(audience)) {
      errs.push(field.duplicate(`${path}.audience`, audience));
      return;
    }
    audiences.add(audience);
    const seconds = t.expirationSeconds;
    if (typeof seconds !== 'number') return;
    if (seconds < MIN_TOKEN_SECONDS) errs.push(field.invalid(`${path}.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > MAX_TOKEN_SECONDS) errs.push(field.invalid(`${path}.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}

/** validateCSIDriverSpec (kube reports attachRequired at "spec.attachedRequired"). */
function validateCsiDriver(obj: CSIDriver): FieldErrorList {
  const spec = objectOf(obj.spec);
  const errs = [
    ...required(spec, 'attachRequired', 'spec.attachedRequired'),
    ...required(spec, 'podInfoOnMount', 'spec.podInfoOnMount'),
    ...required(spec, 'storageCapacity', 'spec.storageCapacity'),
  ];
  if (spec.fsGroupPolicy !== undefined && spec.fsGroupPolicy !== null && !FS_GROUP_POLICIES.includes(stringOf(spec.fsGroupPolicy))) {
    errs.push(field.notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, [...FS_GROUP_POLICIES].sort()));
  }
  errs.push(...validateTokenRequests(spec));
  for (const mode of stringsIn(spec.volumeLifecycleModes)) {
    if (!LIFECYCLE_MODES.includes(mode)) errs.push(field.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  }
  errs.push(...required(spec, 'seLinuxMount', 'spec.seLinuxMount'));
  const period = spec.nodeAllocatableUpdatePeriodSeconds;
  if (typeof period === 'number' && period < 10)
    errs.push(field.invalid('spec.nodeAllocatableUpdatePeriodSeconds', period, 'must be greater than or equal to 10 seconds'));
  return errs;
}

/** ValidateCSIDriverUpdate: whether volumes attach, and which lifecycles the driver serves, never change. */
function validateCsiDriverUpdate(next: CSIDriver, prev: CSIDriver): FieldErrorList {
  const a = objectOf(next.spec);
  const b = objectOf(prev.spec);
  const errs: FieldErrorList = [];
  if (!jsonEqual(a.attachRequired, b.attachRequired)) errs.push(field.invalid('spec.attachedRequired', a.attachRequired ?? null, 'field is immutable'));
  if (!jsonEqual(a.volumeLifecycleModes, b.volumeLifecycleModes))
    errs.push(field.invalid('spec.volumeLifecycleModes', a.volumeLifecycleModes ?? null, 'field is immutable'));
  return errs;
}

const bool = (o: KubeObject, key: string): boolean => objectOf(o.spec)[key] === true;

export const csidrivers = defineResource<CSIDriver>({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csidrivers',
  kind: 'CSIDriver',
  namespaced: false,
  returnDeletedObject: true,
  strategy: strategy<CSIDriver>({ applyDefaults: defaultCsiDriver, validate: validateCsiDriver, validateUpdate: validateCsiDriverUpdate }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'AttachRequired',
      type: 'boolean',
      description: 'attachRequired indicates this CSI volume driver requires an attach operation.',
      cell: (o) => bool(o, 'attachRequired'),
    },
    {
      name: 'PodInfoOnMount',
      type: 'boolean',
      description: 'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.',
      cell: (o) => bool(o, 'podInfoOnMount'),
    },
    {
      name: 'StorageCapacity',
      type: 'boolean',
      description:
        'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.',
      cell: (o) => bool(o, 'storageCapacity'),
    },
    {
      name: 'TokenRequests',
      type: 'string',
      description: "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.",
      cell: (o) => {
        const audiences = objectsIn(objectOf(o.spec).tokenRequests).map((t) => stringOf(t.audience));
        return audiences.length > 0 ? audiences.join(',') : '<unset>';
      },
    },
    {
      name: 'RequiresRepublish',
      type: 'boolean',
      description:
        'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.',
      cell: (o) => bool(o, 'requiresRepublish'),
    },
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
