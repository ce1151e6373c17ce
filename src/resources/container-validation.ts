import { field, type FieldErrorList } from '../api/field-errors';
import { compareQuantities, parseQuantity } from '../api/quantity';
import { isPlainObject } from '../api/types';
import { isValidPortName, isValidPortNum } from './network-validation';
import { quantityText, validateNonNegativeQuantities } from './resource-lists';

/** The per-container rules of kube's pkg/apis/core/validation that every kind of container shares. */

type Obj = Record<string, unknown>;

const asList = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** validateContainerPorts: a name is checked, then must be unique within the container; then the numbers and protocol. */
export function containerPortErrors(ports: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const names = new Set<string>();
  asList(ports).forEach((port, i) => {
    const p = `${path}[${i}]`;
    if (typeof port.name === 'string' && port.name !== '') {
      const msgs = isValidPortName(port.name);
      for (const msg of msgs) errs.push(field.invalid(`${p}.name`, port.name, msg));
      if (msgs.length === 0 && names.has(port.name)) errs.push(field.duplicate(`${p}.name`, port.name));
      else if (msgs.length === 0) names.add(port.name);
    }
    const containerPort = port.containerPort ?? 0;
    if (containerPort === 0) errs.push(field.required(`${p}.containerPort`));
    else for (const msg of isValidPortNum(containerPort as number)) errs.push(field.invalid(`${p}.containerPort`, containerPort, msg));
    const hostPort = port.hostPort ?? 0;
    if (hostPort !== 0) for (const msg of isValidPortNum(hostPort as number)) errs.push(field.invalid(`${p}.hostPort`, hostPort, msg));
    if (port.protocol === undefined || port.protocol === '') errs.push(field.required(`${p}.protocol`));
    else if (!PROTOCOLS.includes(port.protocol as string)) errs.push(field.notSupported(`${p}.protocol`, port.protocol, PROTOCOLS));
  });
  return errs;
}

/**
 * ValidateEnv's name rule. RelaxedEnvironmentVariableValidation is GA (locked on) since 1.34, so a
 * name is apimachinery's IsRelaxedEnvVarName: printable ASCII other than '='. Then its valueFrom.
 */
export function envErrors(env: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  asList(env).forEach((e, i) => {
    const p = `${path}[${i}].name`;
    if (typeof e.name !== 'string' || e.name === '') errs.push(field.required(p));
    else if (!/^[\x20-\x7e]*$/.test(e.name) || e.name.includes('=')) {
      errs.push(field.invalid(p, e.name, "a valid environment variable name must consist only of printable ASCII characters other than '='"));
    }
    errs.push(...valueFromErrors(e, `${path}[${i}].valueFrom`));
  });
  return errs;
}

const VALUE_SOURCES = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'];

/** validateEnvVarValueFrom's count of sources: exactly one, and no `value` beside it. */
function valueFromErrors(e: Obj, path: string): FieldErrorList {
  if (!isPlainObject(e.valueFrom)) return [];
  const from = e.valueFrom;
  const sources = VALUE_SOURCES.filter((k) => from[k] !== undefined && from[k] !== null).length;
  if (sources === 0) return [field.invalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`')];
  if (typeof e.value === 'string' && e.value !== '') return [field.invalid(path, '', 'may not be specified when `value` is not empty')];
  if (sources > 1) return [field.invalid(path, '', 'may not have more than one field specified at a time')];
  return [];
}

/** helper.IsOvercommitAllowed: native resources (no domain, or a kubernetes.io one) other than hugepages. */
const overcommitAllowed = (name: string): boolean => (!name.includes('/') || name.includes('kubernetes.io/')) && !name.startsWith('hugepages-');

/**
 * validateResourceRequirements' quantity rules: none negative, a request at most its limit, and
 * for resources that cannot be overcommitted (extended ones) a request equal to a limit that must
 * be set. Like kube, the request/limit errors name the requests or limits map, not the key.
 */
export function resourceRequirementErrors(resources: unknown, path: string): FieldErrorList {
  if (!isPlainObject(resources)) return [];
  const limits = isPlainObject(resources.limits) ? resources.limits : {};
  const requests = isPlainObject(resources.requests) ? resources.requests : {};
  const errs = validateNonNegativeQuantities(limits, `${path}.limits`);
  for (const [name, request] of Object.entries(requests)) {
    errs.push(...validateNonNegativeQuantities({ [name]: request }, `${path}.requests`));
    const r = parseQuantity(request);
    if (!(name in limits)) {
      if (!overcommitAllowed(name)) errs.push(field.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
      continue;
    }
    const limit = limits[name];
    const l = parseQuantity(limit);
    if (!r || !l) continue;
    const cmp = compareQuantities(r, l);
    if (cmp !== 0 && !overcommitAllowed(name)) {
      errs.push(field.invalid(`${path}.requests`, quantityText(request), `must be equal to ${name} limit of ${quantityText(limit)}`));
    } else if (cmp > 0) {
      errs.push(field.invalid(`${path}.requests`, quantityText(request), `must be less than or equal to ${name} limit of ${quantityText(limit)}`));
    }
  }
  return errs;
}

const ONE_HANDLER = 'may not specify more than 1 handler type';

function portNumOrNameErrors(port: unknown, path: string): FieldErrorList {
  if (typeof port === 'string') return isValidPortName(port).map((msg) => field.invalid(path, port, msg));
  return isValidPortNum(port as number).map((msg) => field.invalid(path, port ?? 0, msg));
}

/** What validateHandler checks inside each kind of action. */
const ACTION_CHECKS: Record<string, (action: Obj, path: string) => FieldErrorList> = {
  exec: (a, p) => (Array.isArray(a.command) && a.command.length > 0 ? [] : [field.required(`${p}.command`)]),
  httpGet: (a, p) => {
    const errs: FieldErrorList = [];
    if (typeof a.path !== 'string' || a.path === '') errs.push(field.required(`${p}.path`));
    errs.push(...portNumOrNameErrors(a.port, `${p}.port`));
    if (a.scheme !== 'HTTP' && a.scheme !== 'HTTPS') errs.push(field.notSupported(`${p}.scheme`, a.scheme ?? '', ['HTTP', 'HTTPS']));
    return errs;
  },
  tcpSocket: (a, p) => portNumOrNameErrors(a.port, `${p}.port`),
  grpc: (a, p) => portNumOrNameErrors(typeof a.port === 'number' ? a.port : 0, `${p}.port`),
  sleep: () => [],
};

/**
 * validateHandler: exactly one action, the first set one checked and every later one forbidden,
 * in kube's commonHandler order. Probes take no sleep, lifecycle hooks no grpc.
 */
function handlerErrors(handler: Obj, kinds: string[], path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  let found = false;
  for (const kind of kinds) {
    const action = handler[kind];
    if (action === undefined || action === null) continue;
    if (found) errs.push(field.forbidden(`${path}.${kind}`, ONE_HANDLER));
    else errs.push(...ACTION_CHECKS[kind](isPlainObject(action) ? action : {}, `${path}.${kind}`));
    found = true;
  }
  if (!found) errs.push(field.required(path, 'must specify a handler type'));
  return errs;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];
const PROBE_COUNTS = ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'];

/** validateProbe, plus validateLivenessProbe's, validateReadinessProbe's and validateStartupProbe's own rule. */
function probeErrors(probe: unknown, kind: 'livenessProbe' | 'readinessProbe' | 'startupProbe', path: string): FieldErrorList {
  if (!isPlainObject(probe)) return [];
  const errs = handlerErrors(probe, PROBE_HANDLERS, path);
  for (const key of PROBE_COUNTS) {
    const v = probe[key];
    if (typeof v === 'number' && v < 0) errs.push(field.invalid(`${path}.${key}`, v, 'must be greater than or equal to 0'));
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace <= 0) errs.push(field.invalid(`${path}.terminationGracePeriodSeconds`, grace, 'must be greater than 0'));
  if (kind === 'readinessProbe') {
    if (grace !== undefined && grace !== null) {
      errs.push(field.invalid(`${path}.terminationGracePeriodSeconds`, grace, 'must not be set for readinessProbes'));
    }
  } else if (probe.successThreshold !== undefined && probe.successThreshold !== 1) {
    errs.push(field.invalid(`${path}.successThreshold`, probe.successThreshold, 'must be 1'));
  }
  return errs;
}

/** The lifecycle hooks and probes of a container that runs for the pod's life (regular or sidecar), as validateContainers checks them. */
export function lifecycleAndProbeErrors(c: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (isPlainObject(c.lifecycle)) {
    for (const hook of ['postStart', 'preStop']) {
      const h = c.lifecycle[hook];
      if (isPlainObject(h)) errs.push(...handlerErrors(h, LIFECYCLE_HANDLERS, `${path}.lifecycle.${hook}`));
    }
  }
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) errs.push(...probeErrors(c[kind], kind, `${path}.${kind}`));
  return errs;
}

/**
 * AccumulateUniqueHostPorts: no two ports of the given containers take the same protocol, host IP
 * and host port. Regular containers are checked together, each init container alone.
 */
export function hostPortConflictErrors(containers: Obj[], path: string, indexOf: (i: number) => number = (i) => i): FieldErrorList {
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  containers.forEach((c, i) => {
    asList(c.ports).forEach((port, j) => {
      if (port.hostPort === undefined || port.hostPort === 0) return;
      const key = `${String(port.protocol ?? '')}/${String(port.hostIP ?? '')}/${String(port.hostPort)}`;
      if (seen.has(key)) errs.push(field.duplicate(`${path}[${indexOf(i)}].ports[${j}].hostPort`, key));
      seen.add(key);
    });
  });
  return errs;
}
