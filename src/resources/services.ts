import { jsonEqual } from '../api/deep-equal';
import type { Service } from '../generated/types/core/v1';
import { nameIsDns1035Label } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { serviceProxy } from '../registry/proxy/service-proxy';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import {
  externallyAccessible,
  needsHealthCheck,
  serviceWarnings,
  stringsOf,
  validateService,
  validateServiceStatus,
  validateServiceUpdate,
} from './service-validation';
import type { FieldErrorList } from '../api/field-errors';
import type { RequestContext } from '../registry/types';
import { jsonClone } from '../api/json-clone';
import { compareGoStrings } from '../api/go-string-order';

type Obj = Record<string, unknown>;

/** v1.DefaultClientIPServiceAffinitySeconds. */
const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

const spec = (svc: KubeObject): Obj => (isPlainObject(svc.spec) ? svc.spec : ((svc.spec = {}) as Obj));
const ports = (svc: KubeObject): Obj[] => (Array.isArray(spec(svc).ports) ? (spec(svc).ports as Obj[]).filter(isPlainObject) : []);

/** SetDefaults_Service (pkg/apis/core/v1/defaults.go). */
function defaultService(svc: Service): void {
  const s = spec(svc);
  if (!s.sessionAffinity) s.sessionAffinity = 'None';
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  if (s.sessionAffinity === 'ClientIP') {
    const config = s.sessionAffinityConfig;
    const clientIP = isPlainObject(config) ? config.clientIP : undefined;
    if (!isPlainObject(clientIP) || clientIP.timeoutSeconds === undefined || clientIP.timeoutSeconds === null) {
      s.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS } };
    }
  }
  if (!s.type) s.type = 'ClusterIP';
  for (const p of ports(svc)) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '')
      p.targetPort = typeof p.port === 'number' ? p.port : 0;
  }
  if (externallyAccessible(s) && !s.externalTrafficPolicy) s.externalTrafficPolicy = 'Cluster';
  if (
    (s.internalTrafficPolicy === undefined || s.internalTrafficPolicy === null) &&
    (s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP')
  ) {
    s.internalTrafficPolicy = 'Cluster';
  }
  if (s.type === 'LoadBalancer') {
    if (s.allocateLoadBalancerNodePorts === undefined || s.allocateLoadBalancerNodePorts === null) s.allocateLoadBalancerNodePorts = true;
    // LoadBalancerIPMode (GA): an ingress point with an IP is a VIP unless it says otherwise.
    const lb = isPlainObject(svc.status) && isPlainObject(svc.status.loadBalancer) ? svc.status.loadBalancer : null;
    for (const point of lb && Array.isArray(lb.ingress) ? (lb.ingress as unknown[]).filter(isPlainObject) : []) {
      if (point.ip && (point.ipMode === undefined || point.ipMode === null)) point.ipMode = 'VIP';
    }
  }
}

const needsClusterIp = (s: Obj): boolean => s.type !== 'ExternalName';
const needsNodePort = (s: Obj): boolean => s.type === 'NodePort' || s.type === 'LoadBalancer';
const sameStrings = (a: unknown, b: unknown): boolean => jsonEqual(stringsOf(a), stringsOf(b));
const nodePortSet = (s: Obj): Set<number> =>
  new Set(
    (Array.isArray(s.ports) ? (s.ports as unknown[]).filter(isPlainObject) : [])
      .map((p) => p.nodePort)
      .filter((n): n is number => typeof n === 'number' && n !== 0),
  );

/**
 * normalizeClusterIPs: clusterIP and clusterIPs kept in step for clients that set only the first
 * (on create, clusterIPs from clusterIP; on update, what an old client left out or changed).
 */
function normalizeClusterIps(s: Obj, p: Obj | null): void {
  const ip = typeof s.clusterIP === 'string' ? s.clusterIP : '';
  if (!p) {
    if (ip !== '' && stringsOf(s.clusterIPs).length === 0) s.clusterIPs = [ip];
    return;
  }
  const oldIp = typeof p.clusterIP === 'string' ? p.clusterIP : '';
  if (stringsOf(p.clusterIPs).length > 0 && stringsOf(s.clusterIPs).length === 0 && oldIp === ip) s.clusterIPs = jsonClone(p.clusterIPs);
  if (oldIp !== ip && sameStrings(p.clusterIPs, s.clusterIPs)) {
    if (oldIp !== '' && ip === '') delete s.clusterIPs;
    else s.clusterIPs = [ip];
  }
}

/**
 * patchAllocatedValues: what the server allocated survives an update that leaves it out (kubectl
 * apply of a manifest without clusterIP or nodePort); node ports are matched by port name.
 */
function patchAllocatedValues(s: Obj, p: Obj): void {
  if (needsClusterIp(p) && needsClusterIp(s)) {
    if (!s.clusterIP && p.clusterIP) s.clusterIP = p.clusterIP;
    if (stringsOf(s.clusterIPs).length === 0 && stringsOf(p.clusterIPs).length > 0) s.clusterIPs = jsonClone(p.clusterIPs);
  }
  if (needsNodePort(p) && needsNodePort(s)) {
    const mine = nodePortSet(s);
    const used = new Set([...nodePortSet(p)].filter((n) => mine.has(n)));
    const byName = new Map<string, unknown>();
    for (const o of Array.isArray(p.ports) ? (p.ports as unknown[]).filter(isPlainObject) : []) byName.set(String(o.name ?? ''), o.nodePort);
    for (const port of Array.isArray(s.ports) ? (s.ports as unknown[]).filter(isPlainObject) : []) {
      if (port.nodePort !== undefined && port.nodePort !== 0) continue;
      const old = byName.get(String(port.name ?? ''));
      if (typeof old === 'number' && old !== 0 && !used.has(old)) port.nodePort = old;
    }
  }
  if (needsHealthCheck(p) && needsHealthCheck(s) && !s.healthCheckNodePort && p.healthCheckNodePort) s.healthCheckNodePort = p.healthCheckNodePort;
}

/**
 * dropTypeDependentFields: what the old type needed and the new one does not is cleared where the
 * update left it as it was (a patch of `type` alone), so that it is released; the load balancer
 * status goes with the LoadBalancer type.
 */
function dropTypeDependentFields(next: Service, s: Obj, p: Obj): void {
  if (needsClusterIp(p) && !needsClusterIp(s)) {
    if (p.clusterIP === s.clusterIP && sameStrings(p.clusterIPs, s.clusterIPs)) {
      delete s.clusterIP;
      delete s.clusterIPs;
    }
    if (sameStrings(p.ipFamilies, s.ipFamilies)) delete s.ipFamilies;
    if ((p.ipFamilyPolicy ?? '') === (s.ipFamilyPolicy ?? '')) delete s.ipFamilyPolicy;
  }
  if (needsNodePort(p) && !needsNodePort(s)) {
    const old = nodePortSet(p);
    if ([...nodePortSet(s)].every((n) => old.has(n))) for (const port of ports(next)) delete port.nodePort;
  }
  if (needsHealthCheck(p) && !needsHealthCheck(s) && (p.healthCheckNodePort ?? 0) === (s.healthCheckNodePort ?? 0)) delete s.healthCheckNodePort;
  if (p.type === 'LoadBalancer' && s.type !== 'LoadBalancer') {
    const [a, b] = [p.allocateLoadBalancerNodePorts, s.allocateLoadBalancerNodePorts];
    if (typeof a === 'boolean' && a === b) delete s.allocateLoadBalancerNodePorts;
    if ((p.loadBalancerClass ?? null) === (s.loadBalancerClass ?? null)) delete s.loadBalancerClass;
  }
  if (needsNodePort(p) && !needsNodePort(s) && (p.externalTrafficPolicy ?? '') === (s.externalTrafficPolicy ?? '')) delete s.externalTrafficPolicy;
  if (s.type !== 'LoadBalancer' && isPlainObject(next.status)) next.status.loadBalancer = {};
}

function warnIfValid(errs: FieldErrorList, svc: Service, ctx: RequestContext): FieldErrorList {
  if (errs.length === 0) for (const warning of serviceWarnings(svc)) ctx.warn(warning);
  return errs;
}

function prepareForUpdate(next: Service, prev: Service): void {
  const s = spec(next);
  const p = spec(prev);
  patchAllocatedValues(s, p);
  normalizeClusterIps(s, p);
  dropTypeDependentFields(next, s, p);
}

function externalIp(svc: Service): string {
  const s = spec(svc);
  const external = Array.isArray(s.externalIPs) ? (s.externalIPs as string[]) : [];
  switch (s.type) {
    case 'ExternalName':
      return String(s.externalName ?? '');
    case 'LoadBalancer': {
      const lb = isPlainObject(svc.status) && isPlainObject(svc.status.loadBalancer) ? svc.status.loadBalancer : {};
      const ingress = Array.isArray(lb.ingress) ? (lb.ingress as Obj[]).map((i) => String(i.ip ?? i.hostname ?? '')) : [];
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    default:
      return external.length > 0 ? external.join(',') : '<none>';
  }
}

function portsCell(svc: Service): string {
  const list = ports(svc);
  if (list.length === 0) return '<none>';
  return list.map((p) => (p.nodePort ? `${String(p.port)}:${String(p.nodePort)}/${String(p.protocol)}` : `${String(p.port)}/${String(p.protocol)}`)).join(',');
}

export const services = defineResource<Service>({
  group: '',
  version: 'v1',
  resource: 'services',
  kind: 'Service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  subresources: ['status'],
  connectSubresources: [serviceProxy],
  storagePath: 'services/specs',
  returnDeletedObject: true,
  strategy: strategy<Service>({
    validateStatusUpdate: validateServiceStatus,
    validateName: nameIsDns1035Label,
    allowCreateOnUpdate: true,
    prepareForCreate: (svc) => {
      svc.status = { loadBalancer: {} };
      normalizeClusterIps(spec(svc), null);
    },
    prepareForUpdate,
    applyDefaults: defaultService,
    // ValidateServiceUpdate checks the update's own rules before ValidateService, so the two are
    // the create's and the update's rules, with nothing shared.
    // A valid Service is warned about what kube's WarningsOnCreate and WarningsOnUpdate name.
    validateCreate: (svc, ctx) => warnIfValid(validateService(svc), svc, ctx),
    validateUpdate: (svc, prev, ctx) => warnIfValid(validateServiceUpdate(svc, prev), svc, ctx),
    // kube hides the internalTrafficPolicy an ExternalName Service was once given when it reads it
    // (defaultOnReadInternalTrafficPolicy); kapi drops it once validated.
    canonicalize: (svc) => {
      if (spec(svc).type === 'ExternalName') delete spec(svc).internalTrafficPolicy;
    },
  }),
  fieldLabelConversion: {},
  selectableFields: {
    'spec.clusterIP': (s) => String(spec(s).clusterIP ?? ''),
    'spec.type': (s) => String(spec(s).type ?? ''),
  },
  printerColumns: [
    NAME_COLUMN,
    { name: 'Type', type: 'string', description: 'type determines how the Service is exposed.', cell: (s) => spec(s).type ?? '' },
    {
      name: 'Cluster-IP',
      type: 'string',
      description: 'clusterIP is the IP address of the service and is usually assigned randomly.',
      cell: (s) => {
        const ips = spec(s).clusterIPs;
        return Array.isArray(ips) && ips.length > 0 ? ips[0] : '<none>';
      },
    },
    {
      name: 'External-IP',
      type: 'string',
      description: 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
      cell: externalIp,
    },
    { name: 'Port(s)', type: 'string', description: 'The list of ports that are exposed by this service.', cell: portsCell },
    AGE_COLUMN,
    {
      name: 'Selector',
      type: 'string',
      priority: 1,
      description: 'Route service traffic to pods with label keys and values matching this selector.',
      cell: (s) => {
        const sel = isPlainObject(spec(s).selector) ? (spec(s).selector as Obj) : {};
        const parts = Object.entries(sel)
          .sort(([a], [b]) => compareGoStrings(a, b))
          .map(([k, v]) => `${k}=${String(v)}`);
        return parts.length > 0 ? parts.join(',') : '<none>';
      },
    },
  ],
});
