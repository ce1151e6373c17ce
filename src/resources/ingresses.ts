import { field, type FieldErrorList } from '../api/field-errors';
import type { Ingress } from '../generated/types/networking/v1';
import { objectsIn as records, stringOf as str } from '../api/json-read';
import { isDns1123Subdomain, nameIsDns1035Label, nameIsDnsSubdomain, nameIsPathSegment } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { isValidPortName, isValidPortNum, isWildcardDns1123Subdomain, parseIpSloppy } from './network-validation';
import { validateLoadBalancerStatus, statusOf } from './status-validation';

/** networking.k8s.io/v1 Ingress: stored, defaulted and validated as kube-apiserver does (no controller acts on it). */

type Obj = Record<string, unknown>;

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

const spec = (ing: KubeObject): Obj => (isPlainObject(ing.spec) ? ing.spec : ((ing.spec = {}) as Obj));

function httpPaths(s: Obj): Obj[] {
  return records(s.rules).flatMap((rule) => (isPlainObject(rule.http) ? records(rule.http.paths) : []));
}

/** A path's backend is a Go struct, never absent: one left out is empty, and refused as kube-apiserver refuses it. */
function defaultIngress(ing: Ingress): void {
  for (const path of httpPaths(spec(ing))) if (!isPlainObject(path.backend)) path.backend = {};
}

function validateResourceBackend(ref: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (typeof ref.apiGroup === 'string') for (const msg of isDns1123Subdomain(ref.apiGroup)) errs.push(field.invalid(`${path}.apiGroup`, ref.apiGroup, msg));
  for (const key of ['kind', 'name']) {
    const value = str(ref[key]);
    if (!value) errs.push(field.required(`${path}.${key}`));
    else for (const msg of nameIsPathSegment(value, false)) errs.push(field.invalid(`${path}.${key}`, value, msg));
  }
  return errs;
}

function validateServiceBackend(service: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const name = str(service.name);
  if (!name) errs.push(field.required(`${path}.service.name`));
  else for (const msg of nameIsDns1035Label(name, false)) errs.push(field.invalid(`${path}.service.name`, name, msg));
  const port = isPlainObject(service.port) ? service.port : {};
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName && portNumber) errs.push(field.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName) for (const msg of isValidPortName(portName)) errs.push(field.invalid(`${path}.service.port.name`, portName, msg));
  else if (portNumber) for (const msg of isValidPortNum(portNumber)) errs.push(field.invalid(`${path}.service.port.number`, portNumber, msg));
  else errs.push(field.required(path, 'port name or number is required'));
  return errs;
}

/** validateIngressBackend: exactly one of a service (name and port) or a typed resource reference. */
function validateBackend(backend: Obj, path: string): FieldErrorList {
  const hasResource = isPlainObject(backend.resource);
  const hasService = isPlainObject(backend.service);
  if (hasResource && hasService) return [field.invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateResourceBackend(backend.resource as Obj, `${path}.resource`);
  if (hasService) return validateServiceBackend(backend.service as Obj, path);
  return [field.invalid(path, '', 'resource or service backend is required')];
}

function validatePathValue(value: string, pathType: string, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (pathType === 'ImplementationSpecific') {
    if (value && !value.startsWith('/')) errs.push(field.invalid(path, value, 'must be an absolute path'));
    return errs;
  }
  if (!value.startsWith('/')) errs.push(field.invalid(path, value, 'must be an absolute path'));
  for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(field.invalid(path, value, `must not contain '${seq}'`));
  for (const suffix of INVALID_PATH_SUFFIXES) if (value.endsWith(suffix)) errs.push(field.invalid(path, value, `cannot end with '${suffix}'`));
  return errs;
}

function validateHttpPath(p: Obj, path: string): FieldErrorList {
  if (p.pathType === undefined || p.pathType === null) return [field.required(`${path}.pathType`, 'pathType must be specified')];
  const pathType = str(p.pathType);
  const errs = PATH_TYPES.includes(pathType)
    ? validatePathValue(str(p.path), pathType, `${path}.path`)
    : [field.notSupported(`${path}.pathType`, p.pathType, PATH_TYPES)];
  errs.push(...validateBackend(isPlainObject(p.backend) ? p.backend : {}, `${path}.backend`));
  return errs;
}

function validateHost(host: string, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (parseIpSloppy(host)) errs.push(field.invalid(path, host, 'must be a DNS name, not an IP address'));
  const messages = host.includes('*') ? isWildcardDns1123Subdomain(host) : isDns1123Subdomain(host);
  for (const msg of messages) errs.push(field.invalid(path, host, msg));
  return errs;
}

/** IngressValidationOptions: what an update may keep that a create may not (invalid values an old object already had). */
interface IngressOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

const CREATE_OPTIONS: IngressOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false };

function validateRuleValue(rule: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (isPlainObject(rule.http)) {
    const paths = records(rule.http.paths);
    if (paths.length === 0) errs.push(field.required(`${path}.http.paths`));
    paths.forEach((p, j) => errs.push(...validateHttpPath(p, `${path}.http.paths[${j}]`)));
  }
  return errs;
}

/** The options of ValidateIngressUpdate, from the stored Ingress. */
function updateOptions(prev: Ingress): IngressOptions {
  const s = spec(prev);
  return {
    allowInvalidSecretName: records(s.tls).some((t) => str(t.secretName) !== '' && nameIsDnsSubdomain(str(t.secretName), false).length > 0),
    allowInvalidWildcardHostRule: records(s.rules).some((r) => str(r.host).includes('*') && validateRuleValue(r, '').length > 0),
  };
}

function validateRules(rules: Obj[], opts: IngressOptions): FieldErrorList {
  return rules.flatMap((rule, i) => {
    const path = `spec.rules[${i}]`;
    const errs: FieldErrorList = [];
    if (str(rule.host)) errs.push(...validateHost(str(rule.host), `${path}.host`));
    if (!str(rule.host).includes('*') || !opts.allowInvalidWildcardHostRule) errs.push(...validateRuleValue(rule, path));
    return errs;
  });
}

function validateTls(tls: Obj[], opts: IngressOptions): FieldErrorList {
  return tls.flatMap((entry, i) => {
    const errs: FieldErrorList = [];
    (Array.isArray(entry.hosts) ? entry.hosts : []).forEach((host: unknown, j) => {
      const h = str(host);
      const messages = h.includes('*') ? isWildcardDns1123Subdomain(h) : isDns1123Subdomain(h);
      for (const msg of messages) errs.push(field.invalid(`spec.tls[${i}].hosts[${j}]`, h, msg));
    });
    const secretName = str(entry.secretName);
    if (secretName && !opts.allowInvalidSecretName) {
      for (const msg of nameIsDnsSubdomain(secretName, false)) errs.push(field.invalid(`spec.tls[${i}].secretName`, secretName, msg));
    }
    return errs;
  });
}

/** ValidateIngressSpec. */
function validateIngress(ing: Ingress, opts: IngressOptions): FieldErrorList {
  const s = spec(ing);
  const rules = records(s.rules);
  const errs: FieldErrorList = [];
  if (rules.length === 0 && !isPlainObject(s.defaultBackend)) errs.push(field.invalid('spec', null, 'either `defaultBackend` or `rules` must be specified'));
  if (isPlainObject(s.defaultBackend)) errs.push(...validateBackend(s.defaultBackend, 'spec.defaultBackend'));
  errs.push(...validateRules(rules, opts), ...validateTls(records(s.tls), opts));
  if (typeof s.ingressClassName === 'string') {
    for (const msg of nameIsDnsSubdomain(s.ingressClassName, false)) errs.push(field.invalid('spec.ingressClassName', s.ingressClassName, msg));
  }
  return errs;
}

const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** ValidateIngressCreate: the spec, and the deprecated class annotation agreeing with ingressClassName. */
function validateIngressCreate(ing: Ingress): FieldErrorList {
  const errs = validateIngress(ing, CREATE_OPTIONS);
  const annotations = isPlainObject(ing.metadata.annotations) ? ing.metadata.annotations : {};
  const className = spec(ing).ingressClassName;
  if (INGRESS_CLASS_ANNOTATION in annotations && typeof className === 'string' && annotations[INGRESS_CLASS_ANNOTATION] !== className) {
    // kube's path: "annotations", not "metadata.annotations[...]".
    errs.push(
      field.invalid(`annotations.${INGRESS_CLASS_ANNOTATION}`, annotations[INGRESS_CLASS_ANNOTATION], 'must match `ingressClassName` when both are specified'),
    );
  }
  return errs;
}

/** The Hosts column: up to three hosts, then how many rules more; "*" when no rule names a host. */
function hostsCell(ing: Ingress): string {
  const rules = records(spec(ing).rules);
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    if (!more && str(rule.host)) hosts.push(str(rule.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

function addressCell(ing: Ingress): string {
  const lb = isPlainObject(ing.status) && isPlainObject(ing.status.loadBalancer) ? ing.status.loadBalancer : {};
  const addresses = new Set(
    records(lb.ingress)
      .map((i) => str(i.ip) || str(i.hostname))
      .filter(Boolean),
  );
  return [...addresses].sort().join(',');
}

export const ingresses = defineResource<Ingress>({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingresses',
  kind: 'Ingress',
  namespaced: true,
  shortNames: ['ing'],
  subresources: ['status'],
  storagePath: 'ingress',
  strategy: strategy<Ingress>({
    validateStatusUpdate: (next, prev) => validateLoadBalancerStatus(statusOf(next), statusOf(prev), 'status'),
    tracksGeneration: true,
    prepareForCreate: (ing) => {
      ing.status = { loadBalancer: {} };
    },
    applyDefaults: defaultIngress,
    validateCreate: validateIngressCreate,
    validateUpdate: (ing, prev) => validateIngress(ing, updateOptions(prev)),
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Class',
      type: 'string',
      description: 'The name of the IngressClass resource that should be used for additional configuration',
      cell: (ing) => (typeof spec(ing).ingressClassName === 'string' ? spec(ing).ingressClassName : '<none>'),
    },
    { name: 'Hosts', type: 'string', description: 'Hosts that incoming requests are matched against before the ingress rule', cell: hostsCell },
    { name: 'Address', type: 'string', description: 'Address is a list containing ingress points for the load-balancer', cell: addressCell },
    {
      name: 'Ports',
      type: 'string',
      description: 'Ports of TLS configurations that open',
      cell: (ing) => (records(spec(ing).tls).length > 0 ? '80, 443' : '80'),
    },
    AGE_COLUMN,
  ],
});
