import { goQuote } from '../../api/field-errors';
import { objectOf, objectsIn, stringOf, stringsIn } from '../../api/json-read';
import {
  containersOf,
  containersPhrase,
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

/**
 * The baseline checks of k8s.io/pod-security-admission/policy, each with the revisions up to the
 * policy version kapi serves (v1.34), and the exact reasons and details of their messages.
 */

/** check_windowsHostProcess.go. */
const windowsHostProcess: CheckPod = (_meta, spec) => {
  const hostProcess = (sc: Obj | null): boolean => objectOf(sc?.windowsOptions).hostProcess === true;
  const setters: string[] = [];
  if (hostProcess(podSecurityContextOf(spec))) setters.push('pod');
  const bad = containersOf(spec)
    .filter((c) => hostProcess(securityContextOf(c)))
    .map(nameOf);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return null;
  return { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
};

/** check_hostNamespaces.go. */
const hostNamespaces: CheckPod = (_meta, spec) => {
  const set = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((key) => spec[key] === true).map((key) => `${key}=true`);
  return set.length === 0 ? null : { reason: 'host namespaces', detail: set.join(', ') };
};

/** check_privileged.go. */
const privileged: CheckPod = (_meta, spec) => {
  const bad = containersOf(spec)
    .filter((c) => securityContextOf(c)?.privileged === true)
    .map(nameOf);
  return bad.length === 0 ? null : { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
};

/** The capabilities a container may add at baseline (capabilities_allowed_1_0). */
const DEFAULT_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

/** check_capabilities_baseline.go. */
const capabilitiesBaseline: CheckPod = (_meta, spec) => {
  const bad: string[] = [];
  const added: string[] = [];
  for (const c of containersOf(spec)) {
    const extra = stringsIn(objectOf(securityContextOf(c)?.capabilities).add).filter((cap) => !DEFAULT_CAPABILITIES.has(cap));
    if (extra.length === 0) continue;
    bad.push(nameOf(c));
    added.push(...extra);
  }
  if (bad.length === 0) return null;
  return {
    reason: 'non-default capabilities',
    detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedUnique(added))} in securityContext.capabilities.add`,
  };
};

/** check_hostPathVolumes.go. */
const hostPathVolumes: CheckPod = (_meta, spec) => {
  const bad = objectsIn(spec.volumes)
    .filter((v) => v.hostPath != null)
    .map(nameOf);
  return bad.length === 0 ? null : { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` };
};

/** check_hostPorts.go: the ports are sorted as strings, as a sets.String. */
const hostPorts: CheckPod = (_meta, spec) => {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of containersOf(spec)) {
    const used = objectsIn(c.ports)
      .map((p) => p.hostPort)
      .filter((p): p is number => typeof p === 'number' && p !== 0);
    if (used.length === 0) continue;
    bad.push(nameOf(c));
    ports.push(...used.map(String));
  }
  if (bad.length === 0) return null;
  const list = sortedUnique(ports);
  return {
    reason: 'hostPort',
    detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', list.length)} ${list.join(', ')}`,
  };
};

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
const allowedAppArmorType = (type: unknown): boolean => type === 'RuntimeDefault' || type === 'Localhost';
const allowedAppArmorAnnotation = (value: string): boolean => value === '' || value === 'runtime/default' || value.startsWith('localhost/');

/** check_appArmorProfile.go. */
const appArmorProfile: CheckPod = (meta, spec) => {
  const setters: string[] = [];
  const values: string[] = [];
  const profileType = (sc: Obj | null): { set: boolean; type: string } => {
    const profile = sc?.appArmorProfile;
    return profile && typeof profile === 'object' ? { set: true, type: stringOf(objectOf(profile).type) } : { set: false, type: '' };
  };
  const pod = profileType(podSecurityContextOf(spec));
  if (pod.set && !allowedAppArmorType(pod.type)) {
    setters.push('pod');
    values.push(pod.type);
  }
  const bad: string[] = [];
  for (const c of containersOf(spec)) {
    const own = profileType(securityContextOf(c));
    if (own.set && !allowedAppArmorType(own.type)) {
      bad.push(nameOf(c));
      values.push(own.type);
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  const valueList = sortedUnique(values);
  const annotations = Object.entries(objectOf(meta.annotations))
    .filter(([key, value]) => key.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(stringOf(value)))
    .map(([key, value]) => `${key}=${goQuote(stringOf(value))}`)
    .sort();
  if (annotations.length > 0) {
    valueList.push(...annotations);
    setters.push(pluralize('annotation', 'annotations', annotations.length));
  }
  if (setters.length === 0) return null;
  return {
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', valueList.length),
    detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(valueList)}`,
  };
};

/** check_seLinuxOptions.go, with the types each revision allows. */
function seLinuxOptions(allowedTypes: Set<string>): CheckPod {
  return (_meta, spec) => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (sc: Obj | null): boolean => {
      if (!sc?.seLinuxOptions || typeof sc.seLinuxOptions !== 'object') return true;
      const opts = objectOf(sc.seLinuxOptions);
      let ok = true;
      const type = stringOf(opts.type);
      if (!allowedTypes.has(type)) {
        ok = false;
        badTypes.push(type);
      }
      if (stringOf(opts.user) !== '') {
        ok = false;
        setUser = true;
      }
      if (stringOf(opts.role) !== '') {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const setters: string[] = [];
    if (!valid(podSecurityContextOf(spec))) setters.push('pod');
    const bad = containersOf(spec)
      .filter((c) => !valid(securityContextOf(c)))
      .map(nameOf);
    if (bad.length > 0) setters.push(containersPhrase(bad));
    if (setters.length === 0) return null;
    const data: string[] = [];
    const types = sortedUnique(badTypes);
    if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
  };
}

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];

/** check_procMount_baseline.go (procMount_1_0). */
export const procMount: CheckPod = (_meta, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of containersOf(spec)) {
    const value = securityContextOf(c)?.procMount;
    if (typeof value !== 'string' || value === 'Default') continue;
    bad.push(nameOf(c));
    types.push(value);
  }
  if (bad.length === 0) return null;
  return { reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedUnique(types))}` };
};

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const validSeccompAnnotation = (v: string): boolean => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
export const validSeccompType = (type: unknown): boolean => type === 'Localhost' || type === 'RuntimeDefault';

/** seccompProfileBaseline_1_0: the alpha annotations. */
const seccompAnnotations: CheckPod = (meta, spec) => {
  const annotations = objectOf(meta.annotations);
  const forbidden: string[] = [];
  const check = (key: string): void => {
    if (!Object.prototype.hasOwnProperty.call(annotations, key)) return;
    const value = stringOf(annotations[key]);
    if (!validSeccompAnnotation(value)) forbidden.push(`${key}=${goQuote(value)}`);
  };
  check(SECCOMP_POD_ANNOTATION);
  for (const c of containersOf(spec)) check(SECCOMP_CONTAINER_ANNOTATION_PREFIX + nameOf(c));
  if (forbidden.length === 0) return null;
  const list = sortedUnique(forbidden);
  return { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}` };
};

/** The seccompProfile type a security context sets, or undefined when it sets none. */
export function seccompTypeOf(sc: Obj | null): string | undefined {
  const profile = sc?.seccompProfile;
  return profile && typeof profile === 'object' ? stringOf(objectOf(profile).type) : undefined;
}

/** seccompProfileBaseline_1_19: no explicit Unconfined (or other) type. */
const seccompProfileBaseline: CheckPod = (_meta, spec) => {
  const setters: string[] = [];
  const values: string[] = [];
  const podType = seccompTypeOf(podSecurityContextOf(spec));
  if (podType !== undefined && !validSeccompType(podType)) {
    setters.push('pod');
    values.push(podType);
  }
  const bad: string[] = [];
  for (const c of containersOf(spec)) {
    const type = seccompTypeOf(securityContextOf(c));
    if (type !== undefined && !validSeccompType(type)) {
      bad.push(nameOf(c));
      values.push(type);
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return null;
  return {
    reason: 'seccompProfile',
    detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}`,
  };
};

const SYSCTLS_1_0 = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [
  ...SYSCTLS_1_27,
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

/** check_sysctls.go, with the sysctls each revision allows; the forbidden ones in the pod's order. */
function sysctls(allowed: string[]): CheckPod {
  const allow = new Set(allowed);
  return (_meta, spec) => {
    const forbidden = objectsIn(podSecurityContextOf(spec)?.sysctls)
      .map(nameOf)
      .filter((name) => !allow.has(name));
    return forbidden.length === 0 ? null : { reason: 'forbidden sysctls', detail: forbidden.join(', ') };
  };
}

/** The hosts a probe or lifecycle handler names (getForbiddenHostProbes / getForbiddenHostLifecycle). */
function handlerHosts(handler: unknown): string[] {
  const h = objectOf(handler);
  return [stringOf(objectOf(h.httpGet).host), stringOf(objectOf(h.tcpSocket).host)].filter((host) => host !== '');
}

/** check_hostProbesAndhostLifecycle.go (v1.34). */
const hostProbesAndHostLifecycle: CheckPod = (_meta, spec) => {
  const bad: string[] = [];
  const hosts: string[] = [];
  for (const c of containersOf(spec)) {
    const lifecycle = objectOf(c.lifecycle);
    const found = [c.livenessProbe, c.readinessProbe, c.startupProbe, lifecycle.postStart, lifecycle.preStop].flatMap(handlerHosts);
    if (found.length === 0) continue;
    bad.push(nameOf(c));
    hosts.push(...found);
  }
  if (bad.length === 0) return null;
  const containers = sortedUnique(bad);
  const list = sortedUnique(hosts);
  return {
    reason: 'probe or lifecycle host',
    detail: `${containersPhrase(containers)} ${pluralize('uses', 'use', containers.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', list.length)} ${joinQuote(list)}`,
  };
};

export const CAPABILITIES_BASELINE = 'capabilities_baseline';
export const HOST_PATH_VOLUMES = 'hostPathVolumes';
export const SECCOMP_PROFILE_BASELINE = 'seccompProfile_baseline';

export const BASELINE_CHECKS: Check[] = [
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimum: 0, check: windowsHostProcess }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimum: 0, check: hostNamespaces }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimum: 0, check: privileged }] },
  { id: CAPABILITIES_BASELINE, level: 'baseline', versions: [{ minimum: 0, check: capabilitiesBaseline }] },
  { id: HOST_PATH_VOLUMES, level: 'baseline', versions: [{ minimum: 0, check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimum: 0, check: hostPorts }] },
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimum: 0, check: appArmorProfile }] },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [
      { minimum: 0, check: seLinuxOptions(new Set(SELINUX_TYPES_1_0)) },
      { minimum: 31, check: seLinuxOptions(new Set([...SELINUX_TYPES_1_0, 'container_engine_t'])) },
    ],
  },
  { id: 'procMount', level: 'baseline', versions: [{ minimum: 0, check: procMount }] },
  {
    id: SECCOMP_PROFILE_BASELINE,
    level: 'baseline',
    versions: [
      { minimum: 0, check: seccompAnnotations },
      { minimum: 19, check: seccompProfileBaseline },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minimum: 0, check: sysctls(SYSCTLS_1_0) },
      { minimum: 27, check: sysctls(SYSCTLS_1_27) },
      { minimum: 29, check: sysctls(SYSCTLS_1_29) },
      { minimum: 32, check: sysctls(SYSCTLS_1_32) },
    ],
  },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ minimum: 34, check: hostProbesAndHostLifecycle }] },
];
