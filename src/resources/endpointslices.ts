import { field, type FieldErrorList } from '../api/field-errors';
import type { EndpointSlice } from '../generated/types/discovery/v1';
import { objectsIn as records, stringOf as str } from '../api/json-read';
import { validateLabels } from '../api/meta-validation';
import { isDns1123Label, isQualifiedName, isValidLabelValue, nameIsDnsSubdomain } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { jsonEqual } from '../api/deep-equal';
import { defineResource } from '../registry/resource-definition';
import { strategy, type ValidationOptions } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { addressErrors } from './endpoint-addresses';
import { ipWarnings } from './network-validation';

/** discovery.k8s.io/v1 EndpointSlice: stored, defaulted and validated as kube-apiserver does; no controller writes them for services. */

type Obj = Record<string, unknown>;

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ZONE_HINTS = 8;
const SHOWN_IN_COLUMN = 3;

/**
 * SetDefaults_EndpointPort: an unnamed TCP port unless told otherwise. An endpoint's conditions are
 * a Go struct, never absent: kube-apiserver writes an empty one.
 */
function defaultEndpointSlice(slice: EndpointSlice): void {
  for (const endpoint of records(slice.endpoints)) if (!isPlainObject(endpoint.conditions)) endpoint.conditions = {};
  for (const port of records(slice.ports)) {
    if (port.name === undefined) port.name = '';
    if (port.protocol === undefined) port.protocol = 'TCP';
  }
}

/** The v1 API does not write deprecatedTopology (kube's dropTopologyOnV1); unchanged endpoints keep theirs. */
function dropTopology(slice: EndpointSlice, prev?: EndpointSlice): void {
  if (prev && jsonEqual(slice.endpoints, prev.endpoints)) return;
  for (const endpoint of records(slice.endpoints)) delete endpoint.deprecatedTopology;
}

function validateHints(hints: Obj, path: string): FieldErrorList {
  const zones = records(hints.forZones);
  if (zones.length > MAX_ZONE_HINTS) return [field.tooMany(`${path}.forZones`, zones.length, MAX_ZONE_HINTS)];
  const seen = new Set<string>();
  return zones.flatMap((zone, i) => {
    const at = `${path}.forZones[${i}].name`;
    const name = str(zone.name);
    const errs: FieldErrorList = seen.has(name) ? [field.duplicate(at, name)] : [];
    seen.add(name);
    for (const msg of isValidLabelValue(name)) errs.push(field.invalid(at, name, msg));
    return errs;
  });
}

function validateEndpoint(endpoint: Obj, addressType: string, path: string, loopbackAllowed: boolean): FieldErrorList {
  const errs: FieldErrorList = [];
  const addresses = Array.isArray(endpoint.addresses) ? endpoint.addresses : [];
  if (addresses.length === 0) errs.push(field.required(`${path}.addresses`, 'must contain at least 1 address'));
  else if (addresses.length > MAX_ADDRESSES) errs.push(field.tooMany(`${path}.addresses`, addresses.length, MAX_ADDRESSES));
  addresses.forEach((address: unknown, i) => errs.push(...addressErrors(addressType, str(address), `${path}.addresses[${i}]`, loopbackAllowed)));
  if (typeof endpoint.nodeName === 'string') {
    for (const msg of nameIsDnsSubdomain(endpoint.nodeName, false)) errs.push(field.invalid(`${path}.nodeName`, endpoint.nodeName, msg));
  }
  if (isPlainObject(endpoint.deprecatedTopology)) {
    const topology = endpoint.deprecatedTopology as Record<string, string>;
    const count = Object.keys(topology).length;
    if (count > MAX_TOPOLOGY_LABELS) errs.push(field.tooMany(`${path}.deprecatedTopology`, count, MAX_TOPOLOGY_LABELS));
    errs.push(...validateLabels(topology, `${path}.deprecatedTopology`));
  }
  if (typeof endpoint.hostname === 'string') {
    for (const msg of isDns1123Label(endpoint.hostname)) errs.push(field.invalid(`${path}.hostname`, endpoint.hostname, msg));
  }
  if (isPlainObject(endpoint.hints)) errs.push(...validateHints(endpoint.hints, `${path}.hints`));
  return errs;
}

function validatePorts(ports: Obj[]): FieldErrorList {
  if (ports.length > MAX_PORTS) return [field.tooMany('ports', ports.length, MAX_PORTS)];
  const names = new Set<string>();
  return ports.flatMap((port, i) => {
    const at = `ports[${i}]`;
    const errs: FieldErrorList = [];
    const name = str(port.name);
    if (name) for (const msg of isDns1123Label(name)) errs.push(field.invalid(`${at}.name`, name, msg));
    if (names.has(name)) errs.push(field.duplicate(`${at}.name`, name));
    names.add(name);
    if (port.protocol === undefined) errs.push(field.required(`${at}.protocol`));
    else if (!PROTOCOLS.includes(str(port.protocol))) errs.push(field.notSupported(`${at}.protocol`, port.protocol, PROTOCOLS));
    if (typeof port.appProtocol === 'string')
      for (const msg of isQualifiedName(port.appProtocol)) errs.push(field.invalid(`${at}.appProtocol`, port.appProtocol, msg));
    return errs;
  });
}

function validateEndpoints(endpoints: Obj[], addressType: string, options: ValidationOptions): FieldErrorList {
  if (endpoints.length > MAX_ENDPOINTS) return [field.tooMany('endpoints', endpoints.length, MAX_ENDPOINTS)];
  return endpoints.flatMap((endpoint, i) => validateEndpoint(endpoint, addressType, `endpoints[${i}]`, options.allowLoopbackEndpoints));
}

/**
 * ValidateEndpointSlice. An update that leaves the endpoints as they were is not made to fix them:
 * KEP-4858 spares a slice's invalid IPs only so, not address by address.
 */
function validateEndpointSlice(slice: EndpointSlice, options: ValidationOptions, prev?: EndpointSlice): FieldErrorList {
  const errs: FieldErrorList = [];
  const addressType = str(slice.addressType);
  if (!addressType) errs.push(field.required('addressType'));
  else if (!ADDRESS_TYPES.includes(addressType)) errs.push(field.notSupported('addressType', addressType, ADDRESS_TYPES));
  if (!prev || !jsonEqual(slice.endpoints, prev.endpoints)) errs.push(...validateEndpoints(records(slice.endpoints), addressType, options));
  errs.push(...validatePorts(records(slice.ports)));
  return errs;
}

function validateAddressTypeUnchanged(next: EndpointSlice, prev: EndpointSlice): FieldErrorList {
  return next.addressType === prev.addressType ? [] : [field.invalid('addressType', next.addressType, 'field is immutable')];
}

const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** kube's EndpointSlice and EndpointSlice mirroring controllers, which write only canonical IPs. */
const IP_FIXING_CONTROLLERS = ['endpointslice-controller.k8s.io', 'endpointslicemirroring-controller.k8s.io'];

/** warnOnBadIPs: GetWarningsForIP on every address (an FQDN gets none), unless one of kube's controllers wrote them. */
function badIpWarnings(slice: EndpointSlice): string[] {
  if (IP_FIXING_CONTROLLERS.includes(slice.metadata.labels?.[MANAGED_BY_LABEL] ?? '')) return [];
  return records(slice.endpoints).flatMap((endpoint, i) =>
    (Array.isArray(endpoint.addresses) ? endpoint.addresses : []).flatMap((a: unknown, j) => ipWarnings(`endpoints[${i}].addresses[${j}]`, str(a))),
  );
}

/** WarningsOnCreate: warnOnDeprecatedAddressType, then warnOnBadIPs. */
function createWarnings(slice: EndpointSlice): string[] {
  return [...(slice.addressType === 'FQDN' ? ['spec.addressType: FQDN endpoints are deprecated'] : []), ...badIpWarnings(slice)];
}

/** listWithMoreString: up to three, then how many more; "<unset>" for none. */
function listCell(items: string[]): string {
  if (items.length > SHOWN_IN_COLUMN) return `${items.slice(0, SHOWN_IN_COLUMN).join(',')} + ${items.length - SHOWN_IN_COLUMN} more...`;
  return items.length > 0 ? items.join(',') : '<unset>';
}

/** formatDiscoveryPorts: a port's number, else its name, else "*". */
const portsCell = (slice: KubeObject): string =>
  listCell(records(slice.ports).map((port) => (typeof port.port === 'number' ? String(port.port) : typeof port.name === 'string' ? port.name : '*')));

const endpointsCell = (slice: KubeObject): string =>
  listCell(records(slice.endpoints).flatMap((endpoint) => (Array.isArray(endpoint.addresses) ? endpoint.addresses.map(str) : [])));

export const endpointslices = defineResource<EndpointSlice>({
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
  kind: 'EndpointSlice',
  namespaced: true,
  strategy: strategy<EndpointSlice>({
    tracksGeneration: true,
    prepareForCreate: (slice) => dropTopology(slice),
    prepareForUpdate: dropTopology,
    applyDefaults: defaultEndpointSlice,
    validate: validateEndpointSlice,
    validateUpdate: validateAddressTypeUnchanged,
    warningsOnCreate: createWarnings,
    warningsOnUpdate: badIpWarnings,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'AddressType',
      type: 'string',
      description:
        'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.',
      cell: (slice) => str(slice.addressType),
    },
    {
      name: 'Ports',
      type: 'string',
      description:
        'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.',
      cell: portsCell,
    },
    {
      name: 'Endpoints',
      type: 'string',
      description: 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.',
      cell: endpointsCell,
    },
    AGE_COLUMN,
  ],
});
