import { field, type FieldErrorList } from '../api/field-errors';
import { isDns1123Label, isQualifiedName } from '../api/name-validation';
import { isPlainObject } from '../api/types';
import type { PodStatus } from '../generated/types/core/v1';
import { containerPortErrors, envErrors, hostPortConflictErrors, lifecycleAndProbeErrors, resourceRequirementErrors } from './container-validation';
import { dnsConfigErrors, hostAliasErrors } from './pod-network';
import { tolerationErrors } from './toleration-validation';

/** PodSpec defaulting and validation, shared by pods and every workload's pod template. */

type Obj = Record<string, unknown>;

const asList = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** SetDefaults_HTTPGetAction, for probes and lifecycle hooks alike. */
function defaultHttpGet(handler: unknown): void {
  if (!isPlainObject(handler) || !isPlainObject(handler.httpGet)) return;
  handler.httpGet.path ??= '/';
  handler.httpGet.scheme ??= 'HTTP';
}

function defaultProbe(probe: unknown): void {
  if (!isPlainObject(probe)) return;
  probe.timeoutSeconds ??= 1;
  probe.periodSeconds ??= 10;
  probe.successThreshold ??= 1;
  probe.failureThreshold ??= 3;
  defaultHttpGet(probe);
}

/** PullAlways for ":latest" or untagged images, IfNotPresent otherwise (digests included). */
function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  const tag = colon < 0 ? '' : lastSegment.slice(colon + 1);
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: Obj): void {
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  c.imagePullPolicy ??= defaultPullPolicy(c.image);
  c.resources ??= {};
  for (const port of asList(c.ports)) port.protocol ??= 'TCP';
  for (const env of asList(c.env)) {
    if (isPlainObject(env.valueFrom) && isPlainObject(env.valueFrom.fieldRef)) env.valueFrom.fieldRef.apiVersion ??= 'v1';
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isPlainObject(c.lifecycle)) for (const hook of ['postStart', 'preStop']) defaultHttpGet(c.lifecycle[hook]);
}

const VOLUME_SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected'];

function defaultVolume(v: Obj): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
  for (const key of VOLUME_SOURCES_WITH_MODE) {
    const source = v[key];
    if (isPlainObject(source)) source.defaultMode ??= 420;
  }
  if (isPlainObject(v.projected)) {
    for (const s of asList(v.projected.sources)) {
      if (isPlainObject(s.serviceAccountToken)) s.serviceAccountToken.expirationSeconds ??= 3600;
    }
  }
  if (isPlainObject(v.hostPath)) v.hostPath.type ??= '';
}

/** SetDefaults_PodSpec and its containers, probes and volumes. */
export function defaultPodSpec(spec: unknown): void {
  if (!isPlainObject(spec)) return;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  for (const c of [...asList(spec.containers), ...asList(spec.initContainers), ...asList(spec.ephemeralContainers)]) defaultContainer(c);
  for (const v of asList(spec.volumes)) defaultVolume(v);
}

/** SetDefaults_Pod: what a pod gets beyond its spec defaults. */
export function defaultPod(spec: unknown): void {
  if (!isPlainObject(spec)) return;
  spec.enableServiceLinks ??= true;
  // defaultHostNetworkPorts: pods only, since pod templates lost it with DefaultHostNetworkHostPortsInPodTemplates (off from 1.28).
  if (spec.hostNetwork === true) {
    for (const c of [...asList(spec.containers), ...asList(spec.initContainers)]) {
      for (const port of asList(c.ports)) if (port.hostPort === undefined || port.hostPort === 0) port.hostPort = port.containerPort;
    }
  }
  for (const c of [...asList(spec.containers), ...asList(spec.initContainers)]) {
    const resources = c.resources;
    if (isPlainObject(resources) && isPlainObject(resources.limits)) {
      const requests = isPlainObject(resources.requests) ? resources.requests : {};
      for (const [k, v] of Object.entries(resources.limits)) requests[k] ??= v;
      resources.requests = requests;
    }
  }
  defaultPodSpec(spec);
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];

/** ValidateVolumes' name rules: each a DNS label, unique within the pod. */
function validateVolumeNames(list: Obj[], path: string, errs: FieldErrorList, seen: Set<string>): void {
  list.forEach((item, i) => {
    const name = item.name;
    if (typeof name !== 'string' || name === '') {
      errs.push(field.required(`${path}[${i}].name`));
      return;
    }
    for (const msg of isDns1123Label(name)) errs.push(field.invalid(`${path}[${i}].name`, name, msg));
    if (seen.has(name)) errs.push(field.duplicate(`${path}[${i}].name`, name));
    seen.add(name);
  });
}

/**
 * validateContainerOnlyForPod: a Pod's image may not have surrounding whitespace. Pod templates
 * may (" " is a placeholder some tools fill in later), so this is not part of containerCommonErrors.
 */
function imageWhitespaceErrors(c: Obj, p: string): FieldErrorList {
  return typeof c.image === 'string' && c.image.trim() !== c.image
    ? [field.invalid(`${p}.image`, c.image, 'must not have leading or trailing whitespace')]
    : [];
}

/** validatePodMetadataAndSpec's pod-only container rule, for regular and init containers (ephemeral ones get it in validateEphemeralContainers). */
export function podOnlyContainerErrors(spec: unknown): FieldErrorList {
  if (!isPlainObject(spec)) return [];
  const errs: FieldErrorList = [];
  for (const key of ['containers', 'initContainers']) asList(spec[key]).forEach((c, i) => errs.push(...imageWhitespaceErrors(c, `spec.${key}[${i}]`)));
  return errs;
}

/** ValidateVolumeMounts' first rules: a mount names one of the pod's volumes (an empty name is both missing and not found) at a path of its own. */
function volumeMountErrors(mounts: unknown, path: string, volumes: Set<string>): FieldErrorList {
  const errs: FieldErrorList = [];
  const paths = new Set<unknown>();
  asList(mounts).forEach((m, j) => {
    const p = `${path}[${j}]`;
    const name = typeof m.name === 'string' ? m.name : '';
    if (name === '') errs.push(field.required(`${p}.name`));
    if (!volumes.has(name)) errs.push(field.notFound(`${p}.name`, name));
    if (typeof m.mountPath !== 'string' || m.mountPath === '') errs.push(field.required(`${p}.mountPath`));
    if (paths.has(m.mountPath)) errs.push(field.invalid(`${p}.mountPath`, m.mountPath, 'must be unique'));
    paths.add(m.mountPath);
  });
  return errs;
}

/** validateContainerCommon: what holds for every kind of container, in kube's order. */
function containerCommonErrors(c: Obj, p: string, volumes: Set<string>): FieldErrorList {
  const errs: FieldErrorList = [];
  if (typeof c.name !== 'string' || c.name === '') errs.push(field.required(`${p}.name`));
  else for (const msg of isDns1123Label(c.name)) errs.push(field.invalid(`${p}.name`, c.name, msg));
  if (typeof c.image !== 'string' || c.image === '') errs.push(field.required(`${p}.image`));
  const policy = c.terminationMessagePolicy;
  if (policy === undefined || policy === null || policy === '') errs.push(field.required(`${p}.terminationMessagePolicy`));
  else if (!MESSAGE_POLICIES.includes(policy as string)) errs.push(field.notSupported(`${p}.terminationMessagePolicy`, policy, MESSAGE_POLICIES));
  errs.push(...containerPortErrors(c.ports, `${p}.ports`));
  errs.push(...envErrors(c.env, `${p}.env`));
  errs.push(...volumeMountErrors(c.volumeMounts, `${p}.volumeMounts`, volumes));
  if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(c.imagePullPolicy as string)) {
    errs.push(field.notSupported(`${p}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES));
  }
  errs.push(...resourceRequirementErrors(c.resources, `${p}.resources`));
  return errs;
}

/** A container name not yet in `names` is added; a repeated one is a Duplicate, as kube's container validators do. */
function duplicateNameErrors(c: Obj, p: string, names: Set<string>): FieldErrorList {
  const name = typeof c.name === 'string' ? c.name : '';
  if (names.has(name)) return [field.duplicate(`${p}.name`, name)];
  if (name !== '') names.add(name);
  return [];
}

/**
 * validateContainers. A container's own restartPolicy (and restartPolicyRules) is left to the
 * ContainerRestartRules rules, on by default since 1.35 and not followed here (docs/divergences.md).
 */
function validateContainers(list: Obj[], path: string, errs: FieldErrorList, names: Set<string>, volumes: Set<string>): void {
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...containerCommonErrors(c, p, volumes));
    errs.push(...duplicateNameErrors(c, p, names));
    errs.push(...lifecycleAndProbeErrors(c, p));
  });
  errs.push(...hostPortConflictErrors(list, path));
}

const INIT_ONLY = 'may not be set for init containers without restartPolicy=Always';

/**
 * validateInitContainers: restartPolicy Always makes a sidecar (isRestartableInitContainer), which
 * may have hooks and probes; any other init container may not.
 */
function validateInitContainers(list: Obj[], path: string, errs: FieldErrorList, names: Set<string>, volumes: Set<string>): void {
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...containerCommonErrors(c, p, volumes));
    errs.push(...duplicateNameErrors(c, p, names));
    errs.push(...hostPortConflictErrors([c], path, () => i));
    if (c.restartPolicy === 'Always') errs.push(...lifecycleAndProbeErrors(c, p));
    else {
      for (const key of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (c[key] !== undefined && c[key] !== null) errs.push(field.forbidden(`${p}.${key}`, INIT_ONLY));
      }
    }
  });
}

/** allowedEphemeralContainerFields: what an ephemeral container may not set, in EphemeralContainerCommon's field order. */
const EPHEMERAL_FORBIDDEN_FIELDS = [
  'ports',
  'resources',
  'resizePolicy',
  'restartPolicy',
  'restartPolicyRules',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
];
const NOT_FOR_EPHEMERAL = 'cannot be set for an Ephemeral Container';

/** Go's zero value of a field: absent, or an empty list, string or struct (resources: {} once defaulted). */
const isZero = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);

/**
 * validateEphemeralContainers: the common container rules, names unique across every kind of
 * container (`names` holds the others'), a target among the pod's other containers, and none of
 * the fields a pod relies on (ports, resources, probes, lifecycle) nor subPath mounts.
 */
function validateEphemeralContainers(list: Obj[], path: string, errs: FieldErrorList, names: Set<string>, volumes: Set<string>): void {
  const others = new Set(names);
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...containerCommonErrors(c, p, volumes));
    errs.push(...imageWhitespaceErrors(c, p));
    errs.push(...duplicateNameErrors(c, p, names));
    if (typeof c.targetContainerName === 'string' && c.targetContainerName !== '' && !others.has(c.targetContainerName)) {
      errs.push(field.notFound(`${p}.targetContainerName`, c.targetContainerName));
    }
    for (const key of EPHEMERAL_FORBIDDEN_FIELDS) if (!isZero(c[key])) errs.push(field.forbidden(`${p}.${key}`, NOT_FOR_EPHEMERAL));
    asList(c.volumeMounts).forEach((m, j) => {
      if (!isZero(m.subPath)) errs.push(field.forbidden(`${p}.volumeMounts[${j}].subPath`, NOT_FOR_EPHEMERAL));
      if (!isZero(m.subPathExpr)) errs.push(field.forbidden(`${p}.volumeMounts[${j}].subPathExpr`, NOT_FOR_EPHEMERAL));
    });
  });
}

const MAX_INT32 = 2147483647;

/**
 * validatePodHostNetworkDeps: on the host network a set hostPort is the containerPort. A Pod's
 * unset hostPort was defaulted to it already (defaultPod), so the template rule serves both.
 */
function hostNetworkPortErrors(containers: Obj[], path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  containers.forEach((c, i) => {
    asList(c.ports).forEach((port, j) => {
      const hostPort = port.hostPort ?? 0;
      if (hostPort !== 0 && hostPort !== (port.containerPort ?? 0)) {
        errs.push(field.invalid(`${path}[${i}].ports[${j}].hostPort`, hostPort, 'must match `containerPort` when `hostNetwork` is true'));
      }
    });
  });
  return errs;
}

/** validateSchedulingGates: qualified names, each once (the errors name the entry, not its name field). */
function schedulingGateErrors(gates: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const seen = new Set<unknown>();
  asList(gates).forEach((g, i) => {
    const name = typeof g.name === 'string' ? g.name : '';
    for (const msg of isQualifiedName(name)) errs.push(field.invalid(`${path}[${i}]`, name, msg));
    if (seen.has(name)) errs.push(field.duplicate(`${path}[${i}]`, name));
    seen.add(name);
  });
  return errs;
}

/**
 * ValidatePodSpec, for the rules a client most often trips over. A negative
 * terminationGracePeriodSeconds is accepted, as kube does (with a warning on pods: podSpecWarnings).
 */
export function validatePodSpec(spec: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!isPlainObject(spec)) return [field.required(path)];
  const volumes = new Set<string>();
  validateVolumeNames(asList(spec.volumes), `${path}.volumes`, errs, volumes);
  const containers = asList(spec.containers);
  if (containers.length === 0) errs.push(field.required(`${path}.containers`));
  const names = new Set<string>();
  validateContainers(containers, `${path}.containers`, errs, names, volumes);
  validateInitContainers(asList(spec.initContainers), `${path}.initContainers`, errs, names, volumes);
  validateEphemeralContainers(asList(spec.ephemeralContainers), `${path}.ephemeralContainers`, errs, names, volumes);
  if (spec.hostNetwork === true) errs.push(...hostNetworkPortErrors(containers, `${path}.containers`));
  if (spec.restartPolicy !== undefined && !RESTART_POLICIES.includes(spec.restartPolicy as string)) {
    errs.push(field.notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
  }
  if (spec.dnsPolicy !== undefined && !DNS_POLICIES.includes(spec.dnsPolicy as string)) {
    errs.push(field.notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  }
  errs.push(...dnsConfigErrors(spec, path));
  errs.push(...schedulingGateErrors(spec.schedulingGates, `${path}.schedulingGates`));
  const deadline = spec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && (deadline < 1 || deadline > MAX_INT32)) {
    errs.push(field.invalid(`${path}.activeDeadlineSeconds`, deadline, `must be between 1 and ${MAX_INT32}, inclusive`));
  }
  for (const key of ['hostname', 'subdomain']) {
    const v = spec[key];
    if (typeof v === 'string' && v !== '') for (const msg of isDns1123Label(v)) errs.push(field.invalid(`${path}.${key}`, v, msg));
  }
  errs.push(...tolerationErrors(spec.tolerations, `${path}.tolerations`));
  errs.push(...hostAliasErrors(spec, path));
  return errs;
}

/** The QoS class a pod's resources put it in. */
export function podQosClass(spec: unknown): NonNullable<PodStatus['qosClass']> {
  if (!isPlainObject(spec)) return 'BestEffort';
  const containers = [...asList(spec.containers), ...asList(spec.initContainers)];
  let anySet = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const r = isPlainObject(c.resources) ? c.resources : {};
    const limits = isPlainObject(r.limits) ? r.limits : {};
    const requests = isPlainObject(r.requests) ? r.requests : {};
    if (Object.keys(limits).length > 0 || Object.keys(requests).length > 0) anySet = true;
    for (const res of ['cpu', 'memory']) {
      if (limits[res] === undefined || (requests[res] !== undefined && requests[res] !== limits[res])) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** kube's GetWarningsForPodTemplate, for the one rule kapi follows: a negative grace period is treated as 1. */
export function podSpecWarnings(spec: unknown, path: string): string[] {
  const grace = isPlainObject(spec) ? spec.terminationGracePeriodSeconds : undefined;
  return typeof grace === 'number' && grace < 0
    ? [`${path}.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1`]
    : [];
}
