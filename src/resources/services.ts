import { jsonEqual } from '../api/deep-equal';
import type { Service } from '../generated/types/core/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { nameIsDns1035Label, isDns1123Label } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { serviceProxy } from '../registry/proxy/service-proxy';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateLoadBalancerStatus, statusOf } from './status-validation';
import { needsHealthCheckNodePort } from '../registry/service-allocation/service-allocator';
import { jsonClone } from '../api/json-clone';
import { compareGoStrings } from '../api/go-string-order';

type Obj = Record<string, unknown>;

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const spec = (svc: KubeObject): Obj => (isPlainObject(svc.spec) ? svc.spec : ((svc.spec = {}) as Obj));
const ports = (svc: KubeObject): Obj[] => (Array.isArray(spec(svc).ports) ? (spec(svc).ports as Obj[]).filter(isPlainObject) : []);

function externallyAccessible(s: Obj): boolean {
  return s.type === 'NodePort' || s.type === 'LoadBalancer' || (Array.isArray(s.externalIPs) && s.externalIPs.length > 0);
}

function defaultService(svc: Service): void {
  const s = spec(svc);
  s.type ??= 'ClusterIP';
  s.sessionAffinity ??= 'None';
  if (s.sessionAffinity === 'ClientIP') s.sessionAffinityConfig ??= { clientIP: { timeoutSeconds: 10800 } };
  for (const p of ports(svc)) {
    p.protocol ??= 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (s.type !== 'ExternalName') s.internalTrafficPolicy ??= 'Cluster';
  if (externallyAccessible(s)) s.externalTrafficPolicy ??= 'Cluster';
  if (s.type === 'LoadBalancer') s.allocateLoadBalancerNodePorts ??= true;
}

const needsNodePort = (s: Obj): boolean => s.type === 'NodePort' || s.type === 'LoadBalancer';

function validateService(svc: Service): FieldErrorList {
  const errs: FieldErrorList = [];
  const s = spec(svc);
  const type = s.type as string;
  if (!TYPES.includes(type)) errs.push(field.notSupported('spec.type', type, TYPES));
  const list = ports(svc);
  const headless = s.clusterIP === 'None';
  if (list.length === 0 && type !== 'ExternalName' && !headless) errs.push(field.required('spec.ports'));
  if (type === 'ExternalName' && !s.externalName) errs.push(field.required('spec.externalName'));
  const names = new Set<string>();
  list.forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    if (list.length > 1) {
      if (typeof p.name !== 'string' || p.name === '') errs.push(field.required(`${path}.name`));
      else if (names.has(p.name)) errs.push(field.duplicate(`${path}.name`, p.name));
    }
    if (typeof p.name === 'string' && p.name !== '') {
      names.add(p.name);
      for (const msg of isDns1123Label(p.name)) errs.push(field.invalid(`${path}.name`, p.name, msg));
    }
    if (typeof p.port !== 'number' || !Number.isInteger(p.port) || p.port < 1 || p.port > 65535) {
      errs.push(p.port === undefined ? field.required(`${path}.port`) : field.invalid(`${path}.port`, p.port, 'must be between 1 and 65535, inclusive'));
    }
    if (!PROTOCOLS.includes(p.protocol as string)) errs.push(field.notSupported(`${path}.protocol`, p.protocol, PROTOCOLS));
    if (p.nodePort !== undefined && p.nodePort !== 0 && (typeof p.nodePort !== 'number' || p.nodePort < 1 || p.nodePort > 65535)) {
      errs.push(field.invalid(`${path}.nodePort`, p.nodePort, 'must be between 1 and 65535, inclusive'));
    } else if (type === 'ClusterIP' && typeof p.nodePort === 'number' && p.nodePort !== 0) {
      errs.push(field.forbidden(`${path}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    }
  });
  return errs;
}

/**
 * dropTypeDependentFields: what the old type needed and the new one does not is cleared where the
 * update left it as it was (a patch of `type` alone), so that it is released.
 */
function dropTypeDependentFields(next: Service, prev: Service): void {
  const n = spec(next);
  const p = spec(prev);
  if (n.type === 'ExternalName' && p.type !== 'ExternalName') {
    for (const key of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) if (jsonEqual(n[key], p[key])) delete n[key];
  }
  if (!needsNodePort(n) && needsNodePort(p)) {
    const old = new Map(ports(prev).map((o) => [o.name ?? '', o.nodePort]));
    for (const port of ports(next)) if (port.nodePort !== undefined && port.nodePort === old.get(port.name ?? '')) delete port.nodePort;
  }
  if (!needsHealthCheckNodePort(n) && n.healthCheckNodePort !== undefined && n.healthCheckNodePort === p.healthCheckNodePort) delete n.healthCheckNodePort;
}

/**
 * Allocated values survive an update that leaves them out (kubectl apply of a manifest without
 * clusterIP), as kube's patchAllocatedValues keeps them; what is still missing is then allocated
 * by the registry's allocator (service-allocation/).
 */
function keepAllocations(next: Service, prev: Service): void {
  dropTypeDependentFields(next, prev);
  const n = spec(next);
  const p = spec(prev);
  if (n.type !== 'ExternalName' && p.type !== 'ExternalName') {
    for (const key of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) if (n[key] === undefined && p[key] !== undefined) n[key] = jsonClone(p[key]);
  }
  if (needsNodePort(p) && needsNodePort(n)) {
    const nodePortsOf = (list: Obj[]): Set<unknown> => new Set(list.map((o) => o.nodePort).filter((v) => v !== undefined && v !== 0));
    // Node ports the new ports already use cannot be given to another; old ones are matched by port name.
    const used = new Set([...nodePortsOf(ports(prev))].filter((v) => nodePortsOf(ports(next)).has(v)));
    const byName = new Map(ports(prev).map((o) => [o.name ?? '', o.nodePort]));
    for (const port of ports(next)) {
      const old = byName.get((port.name as string | undefined) ?? '');
      if ((port.nodePort === undefined || port.nodePort === 0) && old !== undefined && !used.has(old)) port.nodePort = old;
    }
  }
  if (needsHealthCheckNodePort(p) && needsHealthCheckNodePort(n) && (n.healthCheckNodePort === undefined || n.healthCheckNodePort === 0)) {
    n.healthCheckNodePort = p.healthCheckNodePort;
  }
}

function validateServiceUpdate(next: Service, prev: Service): FieldErrorList {
  const n = spec(next);
  const p = spec(prev);
  if (p.clusterIP && n.clusterIP !== p.clusterIP && n.type !== 'ExternalName' && p.type !== 'ExternalName') {
    return [field.invalid('spec.clusterIPs[0]', n.clusterIP ?? '', 'may not change once set')];
  }
  return [];
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
    validateStatusUpdate: (next) => validateLoadBalancerStatus(statusOf(next), 'status', true),
    validateName: nameIsDns1035Label,
    allowCreateOnUpdate: true,
    prepareForCreate: (svc) => {
      svc.status = { loadBalancer: {} };
      defaultService(svc);
    },
    prepareForUpdate: keepAllocations,
    applyDefaults: defaultService,
    validate: validateService,
    validateUpdate: validateServiceUpdate,
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
