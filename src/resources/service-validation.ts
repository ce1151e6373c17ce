import { field, type FieldErrorList } from '../api/field-errors';
import { validateLabels } from '../api/meta-validation';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { endpointIpErrors } from './endpoint-addresses';
import { cidrWarnings, ipWarnings, isValidPortName, isValidPortNum, legacyCidrErrors, legacyIpErrors, parseIpSloppy } from './network-validation';

/**
 * A Service's validation as kube's ValidateService and ValidateServiceUpdate
 * (pkg/apis/core/validation), with their field paths, messages and order.
 */

type Obj = Record<string, unknown>;

const SESSION_AFFINITIES = ['ClientIP', 'None'];
const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const INTERNAL_TRAFFIC_POLICIES = ['Cluster', 'Local'];
const EXTERNAL_TRAFFIC_POLICIES = ['Cluster', 'Local'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
/** PreferSameTrafficDistribution is GA (1.35): PreferClose and its two successors. */
const TRAFFIC_DISTRIBUTIONS = ['PreferClose', 'PreferSameZone', 'PreferSameNode'];
/** core.MaxClientIPServiceAffinitySeconds. */
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

export const specOf = (svc: KubeObject): Obj => (isPlainObject(svc.spec) ? svc.spec : {});
export const portsOf = (svc: KubeObject): Obj[] => (Array.isArray(specOf(svc).ports) ? (specOf(svc).ports as unknown[]).filter(isPlainObject) : []);
export const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** isHeadlessService: clusterIPs is exactly ["None"]. */
export function isHeadless(s: Obj): boolean {
  const ips = stringsOf(s.clusterIPs);
  return ips.length === 1 && ips[0] === 'None';
}

/** apiservice.ExternallyAccessible. */
export function externallyAccessible(s: Obj): boolean {
  return s.type === 'LoadBalancer' || s.type === 'NodePort' || (s.type === 'ClusterIP' && stringsOf(s.externalIPs).length > 0);
}

/** apiservice.NeedsHealthCheck: a LoadBalancer whose external traffic stays on the node. */
export function needsHealthCheck(s: Obj): boolean {
  return s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
}

/**
 * A []string as field errors show it since kube 1.34 (JSON): null when absent. The field errors'
 * values are JSON, as apimachinery's ErrorBody renders anything but strings and numbers.
 */
const listValue = (values: string[]): string[] | null => (values.length === 0 ? null : values);

/** The (protocol, port) key the duplicate-port check builds, a core.ServicePort as JSON shows it. */
const servicePortKey = (protocol: string, port: number): Obj => ({ Name: '', Protocol: protocol, AppProtocol: null, Port: port, TargetPort: 0, NodePort: 0 });

function validateServicePort(p: Obj, requireName: boolean, names: Set<string>, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const name = text(p.name);
  if (requireName && name === '') errs.push(field.required(`${path}.name`));
  else if (name !== '') {
    for (const msg of isDns1123Label(name)) errs.push(field.invalid(`${path}.name`, name, msg));
    if (names.has(name)) errs.push(field.duplicate(`${path}.name`, name));
    else names.add(name);
  }
  for (const msg of isValidPortNum(int(p.port))) errs.push(field.invalid(`${path}.port`, int(p.port), msg));
  const protocol = text(p.protocol);
  if (protocol === '') errs.push(field.required(`${path}.protocol`));
  else if (!PROTOCOLS.includes(protocol)) errs.push(field.notSupported(`${path}.protocol`, protocol, PROTOCOLS));
  // ValidatePortNumOrName
  const target = p.targetPort;
  if (typeof target === 'string') for (const msg of isValidPortName(target)) errs.push(field.invalid(`${path}.targetPort`, target, msg));
  else for (const msg of isValidPortNum(int(target))) errs.push(field.invalid(`${path}.targetPort`, int(target), msg));
  if (typeof p.appProtocol === 'string') {
    for (const msg of isQualifiedName(p.appProtocol)) errs.push(field.invalid(`${path}.appProtocol`, p.appProtocol, msg));
  }
  return errs;
}

function validateClientIpAffinityConfig(config: unknown, path: string): FieldErrorList {
  const why = 'when session affinity type is ClientIP';
  if (!isPlainObject(config)) return [field.required(path, why)];
  if (!isPlainObject(config.clientIP)) return [field.required(`${path}.clientIP`, why)];
  const timeout = config.clientIP.timeoutSeconds;
  if (typeof timeout !== 'number') return [field.required(`${path}.clientIP.timeoutSeconds`, why)];
  if (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS) {
    return [field.invalid(`${path}.clientIP.timeoutSeconds`, timeout, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`)];
  }
  return [];
}

/** netutils.IsIPv6String. */
const isIpv6 = (ip: string): boolean => parseIpSloppy(ip)?.normalized.includes(':') === true;

/**
 * ValidateServiceClusterIPsRelatedFields: clusterIP and clusterIPs agree, families and policy are
 * known values, clusterIPs are IPs (or a lone "None"), at most one of each family, each of the
 * family ipFamilies names at its index. The allocator runs it too, before it fills anything in.
 */
export function validateServiceClusterIpsRelatedFields(s: Obj): FieldErrorList {
  if (s.type === 'ExternalName') return [];
  const errs: FieldErrorList = [];
  const clusterIP = text(s.clusterIP);
  const ips = stringsOf(s.clusterIPs);
  const families = stringsOf(s.ipFamilies);
  if (clusterIP !== '') {
    if (ips.length === 0) errs.push(field.required('spec.clusterIPs'));
    else if (ips[0] !== clusterIP) errs.push(field.invalid('spec.clusterIPs', listValue(ips), 'first value must match `clusterIP`'));
  } else if (ips.length !== 0) {
    errs.push(field.invalid('spec.clusterIPs', listValue(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  families.forEach((family, i) => {
    if (!IP_FAMILIES.includes(family)) errs.push(field.notSupported(`spec.ipFamilies[${i}]`, family, IP_FAMILIES));
    if (seen.has(family)) errs.push(field.duplicate(`spec.ipFamilies[${i}]`, family));
    seen.add(family);
  });
  if (s.ipFamilyPolicy !== undefined && s.ipFamilyPolicy !== null && !IP_FAMILY_POLICIES.includes(text(s.ipFamilyPolicy))) {
    errs.push(field.notSupported('spec.ipFamilyPolicy', s.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let invalidIps = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        invalidIps = true;
        errs.push(field.invalid('spec.clusterIPs', listValue(ips), "'None' must be the first and only value"));
      }
      return;
    }
    const ipErrs = legacyIpErrors(`spec.clusterIPs[${i}]`, ip);
    if (ipErrs.length > 0) invalidIps = true;
    errs.push(...ipErrs);
  });
  if (ips.length > 2) errs.push(field.invalid('spec.clusterIPs', listValue(ips), 'may only hold up to 2 values'));
  if (invalidIps) return errs;
  // IsDualStackIPStrings: IPs of both families among them.
  if (ips.length > 1 && !(ips.some(isIpv6) && !ips.every(isIpv6))) {
    errs.push(field.invalid('spec.clusterIPs', listValue(ips), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(s) && ips.length > 0 && families.length > 0) {
    ips.slice(0, families.length).forEach((ip, i) => {
      if (families[i] === 'IPv4' && isIpv6(ip)) {
        errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      }
      if (families[i] === 'IPv6' && !isIpv6(ip)) {
        errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
      }
    });
  }
  return errs;
}

function validateLoadBalancerClassField(s: Obj, prev: Obj | null): FieldErrorList {
  const errs: FieldErrorList = [];
  const lbClass = s.loadBalancerClass;
  const set = lbClass !== undefined && lbClass !== null;
  if (prev && prev.type === 'LoadBalancer' && s.type === 'LoadBalancer') {
    const before = prev.loadBalancerClass ?? null;
    if ((lbClass ?? null) !== before) errs.push(field.invalid('spec.loadBalancerClass', lbClass, 'may not change once set'));
  }
  if (s.type === 'LoadBalancer') {
    if (set) for (const msg of isQualifiedName(text(lbClass))) errs.push(field.invalid('spec.loadBalancerClass', lbClass, msg));
  } else if (set) {
    errs.push(field.forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  }
  return errs;
}

/**
 * validateServiceExternalTrafficPolicy. kube validates after allocating, so a health check node
 * port the Service needs is always there; kapi validates before (the allocator then gives one),
 * so its absence is not an error here.
 */
function validateExternalTrafficPolicy(s: Obj): FieldErrorList {
  const errs: FieldErrorList = [];
  const policy = text(s.externalTrafficPolicy);
  if (!externallyAccessible(s)) {
    if (policy !== '') errs.push(field.invalid('spec.externalTrafficPolicy', policy, 'may only be set for externally-accessible services'));
  } else if (policy === '') errs.push(field.required('spec.externalTrafficPolicy'));
  else if (!EXTERNAL_TRAFFIC_POLICIES.includes(policy)) errs.push(field.notSupported('spec.externalTrafficPolicy', policy, EXTERNAL_TRAFFIC_POLICIES));
  const hc = int(s.healthCheckNodePort);
  if (!needsHealthCheck(s)) {
    if (hc !== 0) {
      errs.push(field.invalid('spec.healthCheckNodePort', hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    }
  } else if (hc !== 0) {
    for (const msg of isValidPortNum(hc)) errs.push(field.invalid('spec.healthCheckNodePort', hc, msg));
  }
  return errs;
}

function validateInternalTrafficPolicy(s: Obj): FieldErrorList {
  const policy = s.internalTrafficPolicy;
  if (policy === undefined || policy === null) {
    // Not required of ExternalName Services, for historical reasons.
    return s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP' ? [field.required('spec.internalTrafficPolicy')] : [];
  }
  return INTERNAL_TRAFFIC_POLICIES.includes(text(policy)) ? [] : [field.notSupported('spec.internalTrafficPolicy', policy, INTERNAL_TRAFFIC_POLICIES)];
}

const sourceRangesAnnotation = (svc: KubeObject): string | undefined => {
  const annotations = isPlainObject(svc.metadata.annotations) ? svc.metadata.annotations : {};
  return SOURCE_RANGES_ANNOTATION in annotations ? text(annotations[SOURCE_RANGES_ANNOTATION]) : undefined;
};
const annotationRanges = (value: string | undefined): string[] =>
  value?.trim()
    ? value
        .trim()
        .split(',')
        .map((c) => c.trim())
    : [];

function validateSourceRanges(svc: KubeObject, s: Obj, prev: KubeObject | null): FieldErrorList {
  const errs: FieldErrorList = [];
  const ranges = stringsOf(s.loadBalancerSourceRanges);
  const onlyLb = "may only be used when `type` is 'LoadBalancer'";
  if (ranges.length > 0) {
    // kube's path has the capital L.
    const path = 'spec.LoadBalancerSourceRanges';
    if (s.type !== 'LoadBalancer') errs.push(field.forbidden(path, onlyLb));
    // Space-padded values are allowed, a leftover of the annotation.
    const old = prev ? stringsOf(specOf(prev).loadBalancerSourceRanges).map((c) => c.trim()) : [];
    ranges.forEach((value, i) => errs.push(...legacyCidrErrors(`${path}[${i}]`, value.trim(), old)));
    return errs;
  }
  const annotation = sourceRangesAnnotation(svc);
  if (annotation === undefined) return errs;
  const path = `metadata.annotations[${SOURCE_RANGES_ANNOTATION}]`;
  if (s.type !== 'LoadBalancer') errs.push(field.forbidden(path, onlyLb));
  const old = prev ? annotationRanges(sourceRangesAnnotation(prev)) : [];
  for (const cidr of annotationRanges(annotation)) errs.push(...legacyCidrErrors(path, cidr, old));
  return errs;
}

/**
 * ValidateService, less the object metadata (the store checks it). On update, IPs and CIDRs the
 * old object already had are taken as they are (StrictIPCIDRValidation's legacy fields).
 */
export function validateService(svc: KubeObject, prev: KubeObject | null = null): FieldErrorList {
  const errs: FieldErrorList = [];
  const annotations = isPlainObject(svc.metadata.annotations) ? svc.metadata.annotations : {};
  if (TOPOLOGY_MODE_ANNOTATION in annotations && TOPOLOGY_HINTS_ANNOTATION in annotations) {
    const mode = text(annotations[TOPOLOGY_MODE_ANNOTATION]);
    if (mode !== text(annotations[TOPOLOGY_HINTS_ANNOTATION])) {
      errs.push(
        field.invalid(
          `metadata.annotations[${TOPOLOGY_MODE_ANNOTATION}]`,
          mode,
          `must match annotations[${TOPOLOGY_HINTS_ANNOTATION}] when both are specified`,
        ),
      );
    }
  }
  const s = specOf(svc);
  const ports = portsOf(svc);
  const headless = isHeadless(s);
  if (ports.length === 0 && !headless && s.type !== 'ExternalName') errs.push(field.required('spec.ports'));
  switch (s.type) {
    case 'LoadBalancer':
      if (headless) errs.push(field.invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (headless) errs.push(field.invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if (stringsOf(s.clusterIPs).length > 0) errs.push(field.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (stringsOf(s.ipFamilies).length > 0) errs.push(field.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      if (s.ipFamilyPolicy !== undefined && s.ipFamilyPolicy !== null)
        errs.push(field.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      // A trailing dot marks the CNAME fully qualified.
      const cname = text(s.externalName).replace(/\.$/, '');
      if (cname !== '') for (const msg of isDns1123Subdomain(cname)) errs.push(field.invalid('spec.externalName', cname, msg));
      else errs.push(field.required('spec.externalName'));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, `spec.ports[${i}]`)));
  if (isPlainObject(s.selector)) errs.push(...validateLabels(s.selector as Record<string, string>, 'spec.selector'));
  const affinity = text(s.sessionAffinity);
  if (affinity === '') errs.push(field.required('spec.sessionAffinity'));
  else if (!SESSION_AFFINITIES.includes(affinity)) errs.push(field.notSupported('spec.sessionAffinity', affinity, SESSION_AFFINITIES));
  if (affinity === 'ClientIP') errs.push(...validateClientIpAffinityConfig(s.sessionAffinityConfig, 'spec.sessionAffinityConfig'));
  else if (affinity === 'None' && s.sessionAffinityConfig !== undefined && s.sessionAffinityConfig !== null) {
    errs.push(field.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateServiceClusterIpsRelatedFields(s));
  const oldExternalIps = prev ? stringsOf(specOf(prev).externalIPs) : [];
  stringsOf(s.externalIPs).forEach((ip, i) => {
    const path = `spec.externalIPs[${i}]`;
    const ipErrs = legacyIpErrors(path, ip, oldExternalIps);
    errs.push(...(ipErrs.length > 0 ? ipErrs : endpointIpErrors(ip, path, false)));
  });
  const type = text(s.type);
  if (type === '') errs.push(field.required('spec.type'));
  else if (!TYPES.includes(type)) errs.push(field.notSupported('spec.type', type, TYPES));
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (int(p.nodePort) !== 0) errs.push(field.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  // Duplicates: node ports by (protocol, nodePort), ports by (protocol, port).
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (int(p.nodePort) === 0) return;
    const key = `${text(p.protocol)}/${int(p.nodePort)}`;
    if (nodePorts.has(key)) errs.push(field.duplicate(`spec.ports[${i}].nodePort`, int(p.nodePort)));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${text(p.protocol)}/${int(p.port)}`;
    if (portKeys.has(key)) errs.push(field.duplicate(`spec.ports[${i}]`, servicePortKey(text(p.protocol), int(p.port))));
    portKeys.add(key);
  });
  errs.push(...validateSourceRanges(svc, s, prev));
  if (s.allocateLoadBalancerNodePorts !== undefined && s.allocateLoadBalancerNodePorts !== null && type !== 'LoadBalancer') {
    errs.push(field.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  // kube's path lacks the spec. prefix.
  if (type === 'LoadBalancer' && (s.allocateLoadBalancerNodePorts === undefined || s.allocateLoadBalancerNodePorts === null)) {
    errs.push(field.required('allocateLoadBalancerNodePorts'));
  }
  errs.push(...validateLoadBalancerClassField(s, null));
  errs.push(...validateExternalTrafficPolicy(s));
  errs.push(...validateInternalTrafficPolicy(s));
  if (s.trafficDistribution !== undefined && s.trafficDistribution !== null && !TRAFFIC_DISTRIBUTIONS.includes(text(s.trafficDistribution))) {
    errs.push(field.notSupported('spec.trafficDistribution', s.trafficDistribution, TRAFFIC_DISTRIBUTIONS));
  }
  return errs;
}

/** validateUpgradeDowngradeClusterIPs: the primary IP never changes; a secondary goes only with SingleStack. */
function validateUpgradeDowngradeClusterIps(s: Obj, p: Obj): FieldErrorList {
  if (s.type === 'ExternalName' || p.type === 'ExternalName') return [];
  if (isHeadless(s) && isHeadless(p)) return [];
  const errs: FieldErrorList = [];
  const ips = stringsOf(s.clusterIPs);
  const old = stringsOf(p.clusterIPs);
  const value = listValue(ips);
  if (old.length === ips.length) {
    old.forEach((ip, i) => {
      if (ip !== ips[i]) errs.push(field.invalid(`spec.clusterIPs[${i}]`, value, 'may not change once set'));
    });
  } else if (old.length > ips.length) {
    if (ips.length === 0) errs.push(field.invalid('spec.clusterIPs[0]', value, 'primary clusterIP can not be unset'));
    if (ips.length > 0 && ips[0] !== old[0]) errs.push(field.invalid('spec.clusterIPs[0]', value, 'may not change once set'));
    if (ips.length === 1 && s.ipFamilyPolicy !== 'SingleStack') {
      errs.push(field.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (old.length > 0 && ips[0] !== old[0]) {
    errs.push(field.invalid('spec.clusterIPs[0]', value, 'may not change once set'));
  }
  return errs;
}

/** validateUpgradeDowngradeIPFamilies, with kube's values (clusterIPs where it shows them). */
function validateUpgradeDowngradeIpFamilies(s: Obj, p: Obj): FieldErrorList {
  if (s.type === 'ExternalName' || p.type === 'ExternalName') return [];
  if (isHeadless(s) !== isHeadless(p) || isHeadless(s)) return [];
  const errs: FieldErrorList = [];
  const families = stringsOf(s.ipFamilies);
  const old = stringsOf(p.ipFamilies);
  const ips = listValue(stringsOf(s.clusterIPs));
  if (old.length === families.length) {
    old.forEach((family, i) => {
      if (family !== families[i]) errs.push(field.invalid('spec.ipFamilies[0]', listValue(families), 'may not change once set'));
    });
  } else if (old.length > families.length) {
    if (stringsOf(s.clusterIPs).length === 0) errs.push(field.invalid('spec.ipFamilies[0]', listValue(families), 'primary ipFamily can not be unset'));
    if (families.length > 0 && families[0] !== old[0]) errs.push(field.invalid('spec.ipFamilies[0]', ips, 'may not change once set'));
    if (families.length === 1 && s.ipFamilyPolicy !== 'SingleStack') {
      errs.push(field.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (old.length > 0 && families.length > 0 && families[0] !== old[0]) {
    errs.push(field.invalid('spec.ipFamilies[0]', ips, 'may not change once set'));
  }
  return errs;
}

/** ValidateServiceUpdate, less the object metadata. */
export function validateServiceUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const s = specOf(next);
  const p = specOf(prev);
  const errs: FieldErrorList = [
    ...validateUpgradeDowngradeClusterIps(s, p),
    ...validateUpgradeDowngradeIpFamilies(s, p),
    ...validateLoadBalancerClassField(s, p),
  ];
  if (needsHealthCheck(p) && needsHealthCheck(s) && int(s.healthCheckNodePort) !== int(p.healthCheckNodePort)) {
    errs.push(field.forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return [...errs, ...validateService(next, prev)];
}

const IP_MODES = ['Proxy', 'VIP'];

function ingressOf(svc: KubeObject): Obj[] {
  const status = isPlainObject(svc.status) ? svc.status : {};
  const lb = isPlainObject(status.loadBalancer) ? status.loadBalancer : {};
  return Array.isArray(lb.ingress) ? (lb.ingress as unknown[]).filter(isPlainObject) : [];
}

/**
 * ValidateServiceStatusUpdate's ValidateLoadBalancerStatus: ingress points only on a LoadBalancer
 * (AllowServiceLBStatusOnNonLB is off), each with a valid IP whose ipMode is given, or a DNS name.
 */
export function validateServiceStatus(next: KubeObject, prev: KubeObject): FieldErrorList {
  const ingress = ingressOf(next);
  const path = 'status.loadBalancer.ingress';
  if (specOf(next).type !== 'LoadBalancer' && ingress.length > 0) return [field.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  const errs: FieldErrorList = [];
  const oldIngressIps = ingressOf(prev)
    .map((point) => text(point.ip))
    .filter(Boolean);
  ingress.forEach((point, i) => {
    if (!isPlainObject(point)) return;
    const at = `${path}[${i}]`;
    const ip = text(point.ip);
    const hostname = text(point.hostname);
    const mode = point.ipMode;
    if (ip !== '') errs.push(...legacyIpErrors(`${at}.ip`, ip, oldIngressIps));
    if (mode === undefined || mode === null) {
      if (ip !== '') errs.push(field.required(`${at}.ipMode`, 'must be specified when `ip` is set'));
    } else if (ip === '') errs.push(field.forbidden(`${at}.ipMode`, 'may not be specified when `ip` is not set'));
    else if (!IP_MODES.includes(text(mode))) errs.push(field.notSupported(`${at}.ipMode`, mode, IP_MODES));
    if (hostname !== '') {
      for (const msg of isDns1123Subdomain(hostname)) errs.push(field.invalid(`${at}.hostname`, hostname, msg));
      if (parseIpSloppy(hostname)) errs.push(field.invalid(`${at}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** GetWarningsForService (pkg/api/service/warnings.go): what a valid Service is warned about. */
export function serviceWarnings(svc: KubeObject): string[] {
  const s = specOf(svc);
  const warnings: string[] = [];
  const annotations = isPlainObject(svc.metadata.annotations) ? svc.metadata.annotations : {};
  if (TOPOLOGY_HINTS_ANNOTATION in annotations) {
    warnings.push(`annotation ${TOPOLOGY_HINTS_ANNOTATION} is deprecated, please use ${TOPOLOGY_MODE_ANNOTATION} instead`);
  }
  // helper.IsServiceIPSet: a clusterIP, not "None".
  if (text(s.clusterIP) !== '' && s.clusterIP !== 'None') stringsOf(s.clusterIPs).forEach((ip, i) => warnings.push(...ipWarnings(`spec.clusterIPs[${i}]`, ip)));
  if (s.type === 'ClusterIP' && s.clusterIP === 'None') {
    if (text(s.loadBalancerIP) !== '') warnings.push('spec.loadBalancerIP is ignored for headless services');
    if (stringsOf(s.externalIPs).length > 0) warnings.push('spec.externalIPs is ignored for headless services');
    if (s.sessionAffinity !== 'None') warnings.push('spec.SessionAffinity is ignored for headless services');
  }
  stringsOf(s.externalIPs).forEach((ip, i) => warnings.push(...ipWarnings(`spec.externalIPs[${i}]`, ip)));
  if (text(s.loadBalancerIP) !== '') warnings.push(...ipWarnings('spec.loadBalancerIP', text(s.loadBalancerIP)));
  stringsOf(s.loadBalancerSourceRanges).forEach((cidr, i) => warnings.push(...cidrWarnings(`spec.loadBalancerSourceRanges[${i}]`, cidr)));
  if (s.type === 'ExternalName' && stringsOf(s.externalIPs).length > 0) warnings.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  if (s.type !== 'ExternalName' && text(s.externalName) !== '') warnings.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  if (s.trafficDistribution === 'PreferClose') warnings.push('spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"');
  return warnings;
}
