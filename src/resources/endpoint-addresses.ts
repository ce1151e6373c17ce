import { isIP } from 'node:net';
import { field, type FieldErrorList } from '../api/field-errors';
import { isDns1123Label, isDns1123Subdomain } from '../api/name-validation';
import { parseCidr, parseIpSloppy } from './network-validation';

/** How Endpoints' and EndpointSlices' addresses are checked, with apimachinery's messages. */

const LOOPBACK_MESSAGE = 'may not be in the loopback range (127.0.0.0/8, ::1/128)';

/** Ranges ValidateNonSpecialIP refuses: [network, prefix length, message]. */
const SPECIAL_V4: [string, number, string][] = [
  ['127.0.0.0', 8, LOOPBACK_MESSAGE],
  ['169.254.0.0', 16, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
  ['224.0.0.0', 24, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
];
const SPECIAL_V6: [string, number, string][] = [
  ['::1', 128, LOOPBACK_MESSAGE],
  ['fe80::', 10, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
  ['ff02::', 16, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
];

function inRange(address: string, bits: 32 | 128, network: string, prefix: number): boolean {
  const ip = parseCidr(`${address}/${bits}`);
  const net = parseCidr(`${network}/${prefix}`);
  if (!ip || !net) return false;
  const shift = BigInt(bits - prefix);
  return ip.network >> shift === net.network >> shift;
}

/**
 * ValidateNonSpecialIP: no unspecified, loopback or link-local address. kube-apiserver always
 * refuses loopback; kapi allows it with --allow-loopback-endpoints, so that webhooks and services
 * on 127.0.0.1 are reachable in tests.
 */
export function nonSpecialIpErrors(address: string, path: string, loopbackAllowed: boolean): FieldErrorList {
  const checked = mappedIpv4(address) ?? address;
  const v4 = isIP(checked) === 4;
  const bits = v4 ? 32 : 128;
  const errs: FieldErrorList = [];
  if (inRange(checked, bits, v4 ? '0.0.0.0' : '::', bits)) errs.push(field.invalid(path, address, `may not be unspecified (${address})`));
  for (const [network, prefix, message] of v4 ? SPECIAL_V4 : SPECIAL_V6) {
    if (loopbackAllowed && message === LOOPBACK_MESSAGE) continue;
    if (inRange(checked, bits, network, prefix)) errs.push(field.invalid(path, address, message));
  }
  return errs;
}

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) carries: Go's net.IP methods check it as that address. */
function mappedIpv4(address: string): string | null {
  const ip = parseIpSloppy(address);
  if (!ip?.mapped) return null;
  const low = parseCidr(`${ip.normalized}/128`)!.network & 0xffffffffn;
  return [24n, 16n, 8n, 0n].map((shift) => String((low >> shift) & 255n)).join('.');
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

/** The checks of validateEndpoints for one address; unknown address types are not checked. */
export function addressErrors(addressType: string, address: string, path: string, loopbackAllowed: boolean): FieldErrorList {
  switch (addressType) {
    case 'IPv4':
      return isIP(address) === 4 ? nonSpecialIpErrors(address, path, loopbackAllowed) : [field.invalid(path, address, 'must be a valid IPv4 address')];
    case 'IPv6':
      return isIP(address) === 6 ? nonSpecialIpErrors(address, path, loopbackAllowed) : [field.invalid(path, address, 'must be a valid IPv6 address')];
    case 'FQDN':
      return fqdnErrors(address, path);
    default:
      return [];
  }
}
