import { objectOf, objectsIn, stringsIn } from '../../api/json-read';
import { CAPABILITIES_BASELINE, HOST_PATH_VOLUMES, SECCOMP_PROFILE_BASELINE, seccompTypeOf, validSeccompType } from './baseline-checks';
import {
  containersOf,
  containersPhrase,
  isWindowsPod,
  joinQuote,
  nameOf,
  pluralize,
  podSecurityContextOf,
  securityContextOf,
  sortedUnique,
  type Check,
  type CheckPod,
  type Obj,
} from './check-helpers';

/** The restricted checks of k8s.io/pod-security-admission/policy, revisions up to v1.34. */

/** From v1.25 on, Windows pods pass the Linux-only checks. */
const exceptWindows =
  (check: CheckPod): CheckPod =>
  (meta, spec) =>
    isWindowsPod(spec) ? null : check(meta, spec);

/** check_allowPrivilegeEscalation.go. */
const allowPrivilegeEscalation: CheckPod = (_meta, spec) => {
  const bad = containersOf(spec)
    .filter((c) => securityContextOf(c)?.allowPrivilegeEscalation !== false)
    .map(nameOf);
  return bad.length === 0
    ? null
    : { reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
};

/** check_capabilities_restricted.go: drop ALL, add at most NET_BIND_SERVICE. */
const capabilitiesRestricted: CheckPod = (_meta, spec) => {
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const forbidden: string[] = [];
  for (const c of containersOf(spec)) {
    const caps = securityContextOf(c)?.capabilities;
    if (!caps || typeof caps !== 'object') {
      missingDrop.push(nameOf(c));
      continue;
    }
    const { add, drop } = objectOf(caps);
    if (!stringsIn(drop).includes('ALL')) missingDrop.push(nameOf(c));
    const extra = stringsIn(add).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length > 0) {
      adding.push(nameOf(c));
      forbidden.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDrop.length > 0) details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length > 0) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedUnique(forbidden))} in securityContext.capabilities.add`);
  return details.length === 0 ? null : { reason: 'unrestricted capabilities', detail: details.join('; ') };
};

/** The inline volume sources restricted allows. */
const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];
/** The sources restricted names, in the order restrictedVolumes_1_0 tests them. */
const NAMED_VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];
const present = (v: Obj, key: string): boolean => v[key] != null;

/** check_restrictedVolumes.go. */
const restrictedVolumes: CheckPod = (_meta, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const volume of objectsIn(spec.volumes)) {
    if (ALLOWED_VOLUME_SOURCES.some((key) => present(volume, key))) continue;
    bad.push(nameOf(volume));
    types.push(NAMED_VOLUME_SOURCES.find((key) => present(volume, key)) ?? 'unknown');
  }
  if (bad.length === 0) return null;
  const list = sortedUnique(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', list.length)} ${joinQuote(list)}`,
  };
};

/** A boolean a security context sets, or undefined. */
const flag = (sc: Obj | null, key: string): boolean | undefined => (typeof sc?.[key] === 'boolean' ? (sc[key] as boolean) : undefined);

/** check_runAsNonRoot.go (runAsNonRoot1_0): explicit false first, then containers that inherit nothing. */
const runAsNonRoot: CheckPod = (_meta, spec) => {
  const setters: string[] = [];
  const podValue = flag(podSecurityContextOf(spec), 'runAsNonRoot');
  if (podValue === false) setters.push('pod');
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containersOf(spec)) {
    const own = flag(securityContextOf(c), 'runAsNonRoot');
    if (own === false) explicit.push(nameOf(c));
    else if (own === undefined && podValue !== true) implicit.push(nameOf(c));
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length > 0) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return null;
};

/** check_runAsUser.go (runAsUser1_23). */
const runAsUser: CheckPod = (_meta, spec) => {
  const setters: string[] = [];
  if (podSecurityContextOf(spec)?.runAsUser === 0) setters.push('pod');
  const bad = containersOf(spec)
    .filter((c) => securityContextOf(c)?.runAsUser === 0)
    .map(nameOf);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return setters.length === 0 ? null : { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` };
};

/** check_seccompProfile_restricted.go (seccompProfileRestricted_1_19): RuntimeDefault or Localhost, set on the pod or every container. */
const seccompProfileRestricted: CheckPod = (_meta, spec) => {
  const setters: string[] = [];
  const values: string[] = [];
  const podType = seccompTypeOf(podSecurityContextOf(spec));
  if (podType !== undefined && !validSeccompType(podType)) {
    setters.push('pod');
    values.push(podType);
  }
  const podSet = podType !== undefined && validSeccompType(podType);
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containersOf(spec)) {
    const type = seccompTypeOf(securityContextOf(c));
    if (type !== undefined) {
      if (!validSeccompType(type)) {
        explicit.push(nameOf(c));
        values.push(type);
      }
    } else if (!podSet) {
      implicit.push(nameOf(c));
    }
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0)
    return {
      reason: 'seccompProfile',
      detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}`,
    };
  if (implicit.length > 0)
    return {
      reason: 'seccompProfile',
      detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    };
  return null;
};

export const RESTRICTED_CHECKS: Check[] = [
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimum: 0, check: restrictedVolumes, overrides: [HOST_PATH_VOLUMES] }] },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { minimum: 8, check: allowPrivilegeEscalation },
      { minimum: 25, check: exceptWindows(allowPrivilegeEscalation) },
    ],
  },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimum: 0, check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimum: 23, check: runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimum: 19, check: seccompProfileRestricted, overrides: [SECCOMP_PROFILE_BASELINE] },
      { minimum: 25, check: exceptWindows(seccompProfileRestricted), overrides: [SECCOMP_PROFILE_BASELINE] },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimum: 22, check: capabilitiesRestricted, overrides: [CAPABILITIES_BASELINE] },
      { minimum: 25, check: exceptWindows(capabilitiesRestricted), overrides: [CAPABILITIES_BASELINE] },
    ],
  },
];
