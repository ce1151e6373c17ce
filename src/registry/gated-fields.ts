import { field, type FieldErrorList } from '../api/field-errors';
import { isPlainObject, type KubeObject } from '../api/types';
import type { FeatureGateName, FeatureGates } from '../server/feature-gates';

/**
 * Fields behind feature gates, as kube's strategies treat them while the gate is off: a write
 * drops the field (the dropDisabled* functions of kubernetes pkg/api/pod/util.go,
 * pkg/api/persistentvolumeclaim/util.go and pkg/registry/…/strategy.go), or refuses the value
 * (validation given the gate through its options), unless the stored object already uses it.
 * One table for every kind, so an emulated release (--emulated-version) drops what it would.
 */

/** Where a kind holds the part a rule's paths start from, by kube's `Kind.group` spelling (core kinds have no group). */
type Holders = Record<string, string>;

/** Every pod spec, in pods and in the kinds that hold a pod template (DropDisabledTemplateFields). */
const POD_SPECS: Holders = {
  Pod: 'spec',
  PodTemplate: 'template.spec',
  ReplicationController: 'spec.template.spec',
  'Deployment.apps': 'spec.template.spec',
  'ReplicaSet.apps': 'spec.template.spec',
  'StatefulSet.apps': 'spec.template.spec',
  'DaemonSet.apps': 'spec.template.spec',
  'Job.batch': 'spec.template.spec',
  'CronJob.batch': 'spec.jobTemplate.spec.template.spec',
};

/** A pod's status: only pods have one (dropDisabledPodStatusFields). */
const POD_STATUS: Holders = { Pod: 'status' };

const CONTAINERS = 'containers|initContainers|ephemeralContainers';

/** The device requests of a ResourceClaim's spec and of the claims a ResourceClaimTemplate stamps out. */
const CLAIM_DEVICES: Holders = { 'ResourceClaim.resource.k8s.io': 'spec.devices', 'ResourceClaimTemplate.resource.k8s.io': 'spec.spec.devices' };
const SLICE: Holders = { 'ResourceSlice.resource.k8s.io': 'spec' };
const CLAIM_STATUS: Holders = { 'ResourceClaim.resource.k8s.io': 'status' };

interface GatedField {
  gate: FeatureGateName;
  holders: Holders;
  /** Paths from the holder, dot separated: `*` is every element of a list or value of a map, `a|b` either field. */
  paths: string[];
  /** Refuse these values at the paths instead of dropping the field (with kube's NotSupported and the values it lists then). */
  refuse?: { values: string[]; supported: string[] };
  /** The object holding the field goes too when the drop leaves it empty (a Go pointer set back to nil). */
  dropEmptyParent?: boolean;
  /**
   * The paths are lists whose items with the field `having` are dropped, and with them the items of
   * the `referencing` lists (from the holder) whose `name` names one (dropImageVolumes); a list left
   * empty goes, as Go's nil slice is omitted.
   */
  items?: { having: string; referencing: string[] };
}

export const GATED_FIELDS: readonly GatedField[] = [
  // pkg/api/pod/util.go dropDisabledFields and dropDisabledPodStatusFields.
  { gate: 'PodLevelResources', holders: POD_SPECS, paths: ['resources'] },
  { gate: 'HostnameOverride', holders: POD_SPECS, paths: ['hostnameOverride'] },
  { gate: 'GenericWorkload', holders: POD_SPECS, paths: ['schedulingGroup'] },
  { gate: 'EnvFiles', holders: POD_SPECS, paths: [`${CONTAINERS}.*.env.*.valueFrom.fileKeyRef`] },
  // dropContainerRestartRules; an init container's restartPolicy Always is the sidecar feature's, which is GA.
  {
    gate: 'ContainerRestartRules',
    holders: POD_SPECS,
    paths: [`${CONTAINERS}.*.restartPolicyRules`, 'containers|ephemeralContainers.*.restartPolicy'],
  },
  // dropContainerStopSignals: a lifecycle left empty goes too.
  { gate: 'ContainerStopSignals', holders: POD_SPECS, paths: [`${CONTAINERS}.*.lifecycle.stopSignal`], dropEmptyParent: true },
  { gate: 'InPlacePodVerticalScaling', holders: POD_SPECS, paths: ['containers|initContainers.*.resizePolicy'] },
  { gate: 'ClusterTrustBundleProjection', holders: POD_SPECS, paths: ['volumes.*.projected.sources.*.clusterTrustBundle'] },
  { gate: 'PodCertificateRequest', holders: POD_SPECS, paths: ['volumes.*.projected.sources.*.podCertificate'] },
  { gate: 'ImageVolume', holders: POD_SPECS, paths: ['volumes'], items: { having: 'image', referencing: [`${CONTAINERS}.*.volumeMounts`] } },
  { gate: 'InPlacePodLevelResourcesVerticalScaling', holders: POD_STATUS, paths: ['resources', 'allocatedResources'] },
  { gate: 'DRAExtendedResource', holders: POD_STATUS, paths: ['extendedResourceClaimStatus'] },
  // GetValidationOptionsFromPodSpecAndMeta's AllowTaintTolerationComparisonOperators: validated, not dropped.
  {
    gate: 'TaintTolerationComparisonOperators',
    holders: POD_SPECS,
    paths: ['tolerations.*.operator'],
    refuse: { values: ['Lt', 'Gt'], supported: ['Equal', 'Exists'] },
  },
  // pkg/api/persistentvolumeclaim/util.go DropDisabledFieldsFromStatus and dropDisabledFields… for PVCs and PVs.
  { gate: 'VolumeAttributesClass', holders: { PersistentVolumeClaim: 'spec', PersistentVolume: 'spec' }, paths: ['volumeAttributesClassName'] },
  { gate: 'VolumeAttributesClass', holders: { PersistentVolumeClaim: 'status' }, paths: ['currentVolumeAttributesClassName', 'modifyVolumeStatus'] },
  { gate: 'CrossNamespaceVolumeDataSource', holders: { PersistentVolumeClaim: 'spec' }, paths: ['dataSourceRef.namespace'] },
  // The apps, autoscaling, coordination, storage and node strategies' dropDisabled… functions.
  { gate: 'MaxUnavailableStatefulSet', holders: { 'StatefulSet.apps': 'spec.updateStrategy.rollingUpdate' }, paths: ['maxUnavailable'] },
  {
    gate: 'DeploymentReplicaSetTerminatingReplicas',
    holders: { 'Deployment.apps': 'status', 'ReplicaSet.apps': 'status' },
    paths: ['terminatingReplicas'],
  },
  { gate: 'HPAConfigurableTolerance', holders: { 'HorizontalPodAutoscaler.autoscaling': 'spec.behavior' }, paths: ['scaleUp|scaleDown.tolerance'] },
  { gate: 'CoordinatedLeaderElection', holders: { 'Lease.coordination.k8s.io': 'spec' }, paths: ['strategy', 'preferredHolder'] },
  { gate: 'CSIServiceAccountTokenSecrets', holders: { 'CSIDriver.storage.k8s.io': 'spec' }, paths: ['serviceAccountTokenInSecrets'] },
  { gate: 'NodeDeclaredFeatures', holders: { Node: 'status' }, paths: ['declaredFeatures'] },
  // pkg/registry/resource/{resourceclaim,resourceclaimtemplate,resourceslice}/strategy.go dropDisabled…Fields.
  { gate: 'DRAPrioritizedList', holders: CLAIM_DEVICES, paths: ['requests.*.firstAvailable'] },
  { gate: 'DRAAdminAccess', holders: CLAIM_DEVICES, paths: ['requests.*.exactly.adminAccess'] },
  { gate: 'DRADeviceTaints', holders: CLAIM_DEVICES, paths: ['requests.*.exactly.tolerations', 'requests.*.firstAvailable.*.tolerations'] },
  { gate: 'DRADeviceTaints', holders: SLICE, paths: ['devices.*.taints'] },
  { gate: 'DRAResourceClaimDeviceStatus', holders: CLAIM_STATUS, paths: ['devices'] },
  {
    gate: 'DRAPartitionableDevices',
    holders: SLICE,
    paths: ['sharedCounters', 'perDeviceNodeSelection', 'devices.*.consumesCounters|nodeName|nodeSelector|allNodes'],
  },
  // The fields k8s.io/api v0.36.3 marks with the gates that are new or beta in 1.36.
  {
    gate: 'DRAConsumableCapacity',
    holders: CLAIM_DEVICES,
    paths: ['requests.*.exactly.capacity', 'requests.*.firstAvailable.*.capacity', 'constraints.*.distinctAttribute'],
  },
  { gate: 'DRAConsumableCapacity', holders: SLICE, paths: ['devices.*.allowMultipleAllocations', 'devices.*.capacity.*.requestPolicy'] },
  { gate: 'DRAConsumableCapacity', holders: CLAIM_STATUS, paths: ['allocation.devices.results.*.shareID|consumedCapacity', 'devices.*.shareID'] },
  { gate: 'DRADeviceBindingConditions', holders: SLICE, paths: ['devices.*.bindsToNode|bindingConditions|bindingFailureConditions'] },
  {
    gate: 'DRADeviceBindingConditions',
    holders: CLAIM_STATUS,
    paths: ['allocation.allocationTimestamp', 'allocation.devices.results.*.bindingConditions|bindingFailureConditions'],
  },
  { gate: 'DRAListTypeAttributes', holders: SLICE, paths: ['devices.*.attributes.*.ints|bools|strings|versions'] },
  { gate: 'DRANodeAllocatableResources', holders: SLICE, paths: ['devices.*.nodeAllocatableResourceMappings'] },
  { gate: 'DRAExtendedResource', holders: { 'DeviceClass.resource.k8s.io': 'spec' }, paths: ['extendedResourceName'] },
];

type Obj = Record<string, unknown>;

/** A path's segments, each its alternatives ("a|b"), split once per holder and rule path. */
type Segments = string[][];
const SPLIT = new Map<string, Segments>();

function segmentsOf(path: string): Segments {
  let segments = SPLIT.get(path);
  if (!segments) SPLIT.set(path, (segments = path.split('.').map((segment) => segment.split('|'))));
  return segments;
}

/**
 * Calls `visit` with each object holding the last segment and the field path that reaches it. A
 * path stops at the first absent part, before anything is joined: most writes hold none of the
 * gated fields.
 */
function walk(node: unknown, segments: Segments, i: number, at: string, visit: (parent: Obj, key: string, path: string) => void): void {
  if (i >= segments.length) return;
  const alternatives = segments[i];
  const last = i === segments.length - 1;
  if (alternatives[0] === '*') {
    if (Array.isArray(node)) node.forEach((item, n) => walk(item, segments, i + 1, `${at}[${n}]`, visit));
    else if (isPlainObject(node)) for (const [key, value] of Object.entries(node)) walk(value, segments, i + 1, `${at}[${key}]`, visit);
    return;
  }
  if (!isPlainObject(node)) return;
  for (const key of alternatives) {
    const value = node[key];
    if (value === undefined || value === null) continue;
    const path = at ? `${at}.${key}` : key;
    if (last) visit(node, key, path);
    else walk(value, segments, i + 1, path, visit);
  }
}

function groupKind(obj: KubeObject): string {
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? (obj.kind ?? '') : `${obj.kind ?? ''}.${apiVersion.slice(0, slash)}`;
}

/** The rule's fields in an object: each holder path joined with each rule path. */
function fieldsOf(rule: GatedField, obj: KubeObject, visit: (parent: Obj, key: string, path: string) => void): void {
  const holder = rule.holders[groupKind(obj)];
  if (holder === undefined) return;
  for (const path of rule.paths) walk(obj, segmentsOf(`${holder}.${path}`), 0, '', visit);
}

/** The items of a list that have the field `having`. */
const itemsHaving = (list: unknown, having: string): Obj[] =>
  Array.isArray(list) ? list.filter((item): item is Obj => isPlainObject(item) && item[having] !== undefined && item[having] !== null) : [];

/** kube's "…InUse(oldSpec)": the stored object already has the field (or one of the refused values, or an item with the field). */
function inUse(rule: GatedField, old: KubeObject | null): boolean {
  if (!old) return false;
  let used = false;
  fieldsOf(rule, old, (parent, key) => {
    if (rule.items) used ||= itemsHaving(parent[key], rule.items.having).length > 0;
    else if (!rule.refuse || rule.refuse.values.includes(parent[key] as string)) used = true;
  });
  return used;
}

/** Keeps the items of the list at parent[key] that `keep` takes; a list left empty goes. */
function filterList(parent: Obj, key: string, keep: (item: unknown) => boolean): void {
  const list = parent[key];
  if (!Array.isArray(list)) return;
  const kept = list.filter(keep);
  if (kept.length === 0) delete parent[key];
  else parent[key] = kept;
}

/** Drops a list rule's items, and the items of the lists that reference them by name. */
function dropItems(rule: GatedField, items: NonNullable<GatedField['items']>, obj: KubeObject): void {
  const names = new Set<unknown>();
  fieldsOf(rule, obj, (parent, key) => {
    const dropped = new Set(itemsHaving(parent[key], items.having));
    for (const item of dropped) names.add(item.name);
    if (dropped.size > 0) filterList(parent, key, (item) => !dropped.has(item as Obj));
  });
  if (names.size === 0) return;
  const holder = rule.holders[groupKind(obj)];
  for (const path of items.referencing) {
    walk(obj, segmentsOf(`${holder}.${path}`), 0, '', (parent, key) => filterList(parent, key, (item) => !isPlainObject(item) || !names.has(item.name)));
  }
}

/** The rules of each kind (`Kind.group`), so that a write of a kind no gate touches costs one lookup. */
const RULES_BY_KIND = new Map<string, GatedField[]>();
for (const rule of GATED_FIELDS) {
  for (const kind of Object.keys(rule.holders)) RULES_BY_KIND.set(kind, [...(RULES_BY_KIND.get(kind) ?? []), rule]);
}

/** The rules of the object's kind whose gate is off and whose field the stored object does not already use. */
function disabledRules(gates: FeatureGates, obj: KubeObject, old: KubeObject | null): GatedField[] {
  const rules = RULES_BY_KIND.get(groupKind(obj));
  return rules ? rules.filter((rule) => !gates[rule.gate] && !inUse(rule, old)) : [];
}

/** Deletes the field; with `dropEmptyParent`, the rule's paths are walked to the field's parent, which goes too once empty. */
function dropField(rule: GatedField, obj: KubeObject): void {
  if (rule.items) return dropItems(rule, rule.items, obj);
  if (!rule.dropEmptyParent) {
    fieldsOf(rule, obj, (parent, key) => delete parent[key]);
    return;
  }
  const holder = rule.holders[groupKind(obj)];
  for (const path of rule.paths) {
    const segments = segmentsOf(`${holder}.${path}`);
    const field = segments[segments.length - 1].join('|');
    walk(obj, segments.slice(0, -1), 0, '', (grandparent, key) => {
      const parent = grandparent[key];
      if (!isPlainObject(parent) || !(field in parent)) return;
      delete parent[field];
      if (Object.keys(parent).length === 0) delete grandparent[key];
    });
  }
}

/** Drops the fields of disabled gates from a create (old null) or an update. */
export function dropDisabledFields(gates: FeatureGates, obj: KubeObject, old: KubeObject | null): void {
  for (const rule of disabledRules(gates, obj, old)) {
    if (!rule.refuse) dropField(rule, obj);
  }
}

/** The values disabled gates do not allow, as validation reports them. */
export function disabledValueErrors(gates: FeatureGates, obj: KubeObject, old: KubeObject | null): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const rule of disabledRules(gates, obj, old)) {
    const { refuse } = rule;
    if (!refuse) continue;
    fieldsOf(rule, obj, (parent, key, path) => {
      if (refuse.values.includes(parent[key] as string)) errs.push(field.notSupported(path, parent[key], refuse.supported));
    });
  }
  return errs;
}
