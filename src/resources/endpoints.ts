import type { Endpoints } from '../generated/types/core/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { stringOf } from '../api/json-read';
import { isDns1123Label, nameIsDnsSubdomain } from '../api/name-validation';
import { isPlainObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy, type ValidationOptions } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { jsonEqual } from '../api/deep-equal';
import { endpointIpErrors } from './endpoint-addresses';
import { ipWarnings, legacyIpErrors } from './network-validation';

type Obj = Record<string, unknown>;

const subsets = (o: Obj): Obj[] => (Array.isArray(o.subsets) ? o.subsets.filter(isPlainObject) : []);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** formatEndpoints: the first three ip:port pairs, then how many more. */
function formatEndpoints(ep: Obj): string {
  const all: string[] = [];
  for (const ss of subsets(ep)) {
    const ports = list(ss.ports);
    for (const addr of list(ss.addresses)) {
      if (ports.length === 0) all.push(String(addr.ip));
      else for (const p of ports) all.push(`${String(addr.ip)}:${String(p.port)}`);
    }
  }
  if (all.length === 0) return '<none>';
  return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
}

/**
 * validateEndpointAddress: IsValidIPForLegacyField with no old value spared (Endpoints ratchet
 * whole subsets instead), the hostname and node name, then ValidateEndpointIP, which names an
 * address it cannot parse a second time.
 */
function validateAddress(address: Obj, path: string, loopbackAllowed: boolean): FieldErrorList {
  const ip = stringOf(address.ip);
  const errs = legacyIpErrors(`${path}.ip`, ip);
  const hostname = stringOf(address.hostname);
  if (hostname) for (const msg of isDns1123Label(hostname)) errs.push(field.invalid(`${path}.hostname`, hostname, msg));
  if (typeof address.nodeName === 'string') {
    for (const msg of nameIsDnsSubdomain(address.nodeName, false)) errs.push(field.invalid(`${path}.nodeName`, address.nodeName, msg));
  }
  errs.push(...endpointIpErrors(ip, `${path}.ip`, loopbackAllowed));
  return errs;
}

/** validateEndpointPort: a name when there are several, a valid port number and protocol. */
function validatePort(port: Obj, requireName: boolean, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const name = stringOf(port.name);
  if (requireName && !name) errs.push(field.required(`${path}.name`));
  else if (name) for (const msg of isDns1123Label(name)) errs.push(field.invalid(`${path}.name`, name, msg));
  const number = port.port;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > 65535) {
    errs.push(field.invalid(`${path}.port`, number ?? 0, 'must be between 1 and 65535, inclusive'));
  }
  const protocol = stringOf(port.protocol);
  if (!protocol) errs.push(field.required(`${path}.protocol`));
  else if (!['SCTP', 'TCP', 'UDP'].includes(protocol)) errs.push(field.notSupported(`${path}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
  return errs;
}

/**
 * ValidateEndpoints' subsets (validateEndpointSubsets). An update that leaves the subsets as they
 * were is not made to fix them (ValidateEndpointsUpdate): KEP-4858 spares an Endpoints' invalid IPs
 * only so, not address by address.
 */
function validateEndpoints(ep: Endpoints, options: ValidationOptions, prev?: Endpoints): FieldErrorList {
  const errs: FieldErrorList = [];
  if (prev && jsonEqual(ep.subsets, prev.subsets)) return errs;
  subsets(ep).forEach((ss, i) => {
    const path = `subsets[${i}]`;
    const addresses = list(ss.addresses);
    const notReady = list(ss.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) errs.push(field.required(path, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateAddress(a, `${path}.addresses[${j}]`, options.allowLoopbackEndpoints)));
    notReady.forEach((a, j) => errs.push(...validateAddress(a, `${path}.notReadyAddresses[${j}]`, options.allowLoopbackEndpoints)));
    const ports = list(ss.ports);
    ports.forEach((p, k) => errs.push(...validatePort(p, ports.length > 1, `${path}.ports[${k}]`)));
  });
  return errs;
}

/** The label and name kube's Endpoints controller writes its Endpoints with. */
const MANAGED_BY_LABEL = 'endpoints.kubernetes.io/managed-by';
const ENDPOINTS_CONTROLLER = 'endpoint-controller';

/**
 * endpointsWarnings: GetWarningsForIP on every address, unless the Endpoints controller wrote them
 * (it writes only canonical IPs).
 */
function endpointsWarnings(ep: Endpoints): string[] {
  if (ep.metadata.labels?.[MANAGED_BY_LABEL] === ENDPOINTS_CONTROLLER) return [];
  return subsets(ep).flatMap((ss, i) =>
    (['addresses', 'notReadyAddresses'] as const).flatMap((key) =>
      list(ss[key]).flatMap((a, j) => ipWarnings(`subsets[${i}].${key}[${j}].ip`, stringOf(a.ip))),
    ),
  );
}

export const endpoints = defineResource<Endpoints>({
  group: '',
  version: 'v1',
  resource: 'endpoints',
  singular: 'endpoints',
  kind: 'Endpoints',
  namespaced: true,
  shortNames: ['ep'],
  storagePath: 'services/endpoints',
  deprecationWarning: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
  strategy: strategy<Endpoints>({
    allowCreateOnUpdate: true,
    applyDefaults: (ep) => {
      for (const ss of subsets(ep)) for (const p of list(ss.ports)) p.protocol ??= 'TCP';
    },
    validate: validateEndpoints,
    warningsOnCreate: endpointsWarnings,
    warningsOnUpdate: endpointsWarnings,
  }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'Endpoints', type: 'string', description: 'The set of all endpoints is the union of all subsets.', cell: formatEndpoints },
    AGE_COLUMN,
  ],
});
