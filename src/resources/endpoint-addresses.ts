import { isIP } from 'node:net';
import { field, type FieldErrorList } from '../api/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../api/name-validation';
import { legacyIpErrors, parseCidr, parseIpSloppy } from './network-validation';

/** How Endpoints' and EndpointSlices' addresses are checked, with apimachinery's messages. */

const LOOPBACK_MESSAGE = 'may not be in the loopback range (127.0.0.0/8, ::1/128)';

/** An address as net.IP's predicates see it: an IPv4-mapped IPv6 address is IPv4. */
function addressValue(text: string, mapped: boolean): { v4: boolean; n: bigint } {
  const v4 = isIP(text) === 4;
  const n = parseCidr(`${text}/${v4 ? 32 : 128}`)!.network;
  return mapped ? { v4: true, n: n & 0xffffffffn } : { v4, n };
}

/** net.IP's IsUnspecified, IsLoopback, IsLinkLocalUnicast and IsLinkLocalMulticast, with kube's message for each. */
const SPECIAL: [(v4: boolean, n: bigint) => boolean, string][] = [
  [(_v4, n) => n === 0n, ''],
  [(v4, n) => (v4 ? n >> 24n === 127n : n === 1n), LOOPBACK_MESSAGE],
  [(v4, n) => (v4 ? n >> 16n === 0xa9fen : n >> 118n === 0x3fan), 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
  [(v4, n) => (v4 ? n >> 8n === 0xe00000n : ((n >> 112n) & 0xff0fn) === 0xff02n), 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
];

/**
 * ValidateEndpointIP (ValidateNonSpecialIP before 1.33): a sloppily parsed IP that is not
 * unspecified, loopback or link-local. kube-apiserver always refuses loopback; kapi allows it with
 * --allow-loopback-endpoints, so that webhooks and services on 127.0.0.1 are reachable in tests.
 */
export function endpointIpErrors(value: string, path: string, loopbackAllowed: boolean): FieldErrorList {
  const ip = parseIpSloppy(value);
  if (!ip) return [field.invalid(path, value, 'must be a valid IP address')];
  const { v4, n } = addressValue(ip.normalized, ip.mapped);
  const errs: FieldErrorList = [];
  for (const [test, message] of SPECIAL) {
    if (loopbackAllowed && message === LOOPBACK_MESSAGE) continue;
    if (test(v4, n)) errs.push(field.invalid(path, value, message || `may not be unspecified (${value})`));
  }
  return errs;
}

/** IsFullyQualifiedDomainName: a DNS subdomain of two labels at least, a trailing dot allowed. */
function fqdnErrors(address: string, path: string): FieldErrorList {
  if (!address) return [field.required(path)];
  const name = address.endsWith('.') ? address.slice(0, -1) : address;
  const subdomainErrs = isDns1123Subdomain(name);
  if (subdomainErrs.length > 0) return [field.invalid(path, name, subdomainErrs.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [field.invalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const labelErrs = isDns1123Label(label);
    if (labelErrs.length > 0) return [field.invalid(path, label, labelErrs.join(','))];
  }
  return [];
}

/**
 * An IP of the slice's family that is not special, as discovery's validateEndpoints checks it:
 * the family and ValidateEndpointIP only once IsValidIPForLegacyField (no old value spared) passes,
 * so that a bad address is named once.
 */
function sliceIpErrors(family: 4 | 6, address: string, path: string, loopbackAllowed: boolean): FieldErrorList {
  const errs = legacyIpErrors(path, address);
  if (errs.length > 0) return errs;
  if (isIP(address) !== family) errs.push(field.invalid(path, address, `must be an IPv${family} address`));
  return [...errs, ...endpointIpErrors(address, path, loopbackAllowed)];
}

/** The checks of discovery's validateEndpoints for one address; unknown address types are not checked. */
export function addressErrors(addressType: string, address: string, path: string, loopbackAllowed: boolean): FieldErrorList {
  switch (addressType) {
    case 'IPv4':
      return sliceIpErrors(4, address, path, loopbackAllowed);
    case 'IPv6':
      return sliceIpErrors(6, address, path, loopbackAllowed);
    case 'FQDN':
      return fqdnErrors(address, path);
    default:
      return [];
  }
}
