import { isIP } from 'node:net';
import { field, type FieldErrorList } from '../api/field-errors';

/** apimachinery's port and address checks (k8s.io/apimachinery/pkg/util/validation), with its messages. */

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

export function isValidPortName(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

export interface Cidr {
  bits: 32 | 128;
  /** The network address: the address with the host bits cleared. */
  network: bigint;
  prefix: number;
}

function ipv4ToBigInt(value: string): bigint {
  return value.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6ToBigInt(value: string): bigint {
  let text = value;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipv4ToBigInt(v4[1]);
    text = `${text.slice(0, -v4[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** netutils.ParseCIDRSloppy: "address/prefix", IPv4 or IPv6; null when it is not one. */
export function parseCidr(value: string): Cidr | null {
  const slash = value.indexOf('/');
  if (slash < 0) return null;
  const address = value.slice(0, slash);
  const prefixText = value.slice(slash + 1);
  const family = isIP(address);
  if (family === 0 || !/^\d{1,3}$/.test(prefixText)) return null;
  const bits = family === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return null;
  const n = family === 4 ? ipv4ToBigInt(address) : ipv6ToBigInt(address);
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  return { bits, network: n & ~hostMask, prefix };
}

export const CIDR_MESSAGE = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

const WILDCARD_DNS1123_SUBDOMAIN = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';

/** IsWildcardDNS1123Subdomain: "*." and a DNS subdomain. */
export function isWildcardDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!new RegExp(`^${WILDCARD_DNS1123_SUBDOMAIN}$`).test(value)) {
    errs.push(
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character " +
        `(e.g. '*.example.com', regex used for validation is '${WILDCARD_DNS1123_SUBDOMAIN}')`,
    );
  }
  return errs;
}

export const INVALID_IP_MESSAGE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** An IPv4 address in dotted decimal as netutils.ParseIPSloppy reads it: leading zeros are decimal, not octal. */
const SLOPPY_V4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/;

/** The IPv4 part of `text` without leading zeros, or null when it is not one ParseIPSloppy takes. */
function sloppyV4(text: string): { text: string; leadingZeros: boolean } | null {
  const m = SLOPPY_V4.exec(text);
  if (!m) return null;
  const octets = m.slice(1);
  if (octets.some((o) => Number(o) > 255)) return null;
  return { text: octets.map((o) => String(Number(o))).join('.'), leadingZeros: octets.some((o) => o.length > 1 && o.startsWith('0')) };
}

interface SloppyIp {
  /** The address as net/netip writes it only when it has no leading zeros. */
  normalized: string;
  leadingZeros: boolean;
  /** An IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
  mapped: boolean;
}

/** netutils.ParseIPSloppy: Go 1.16's net.ParseIP, which still reads IPv4 octets with leading zeros. */
export function parseIpSloppy(value: string): SloppyIp | null {
  const v4 = sloppyV4(value);
  if (v4) return { normalized: v4.text, leadingZeros: v4.leadingZeros, mapped: false };
  if (!value.includes(':') || value.includes('%')) return null;
  // An embedded IPv4 tail may have leading zeros too.
  const tail = /[^:]*$/.exec(value)![0];
  let text = value;
  let leadingZeros = false;
  if (tail.includes('.')) {
    const embedded = sloppyV4(tail);
    if (!embedded) return null;
    text = value.slice(0, value.length - tail.length) + embedded.text;
    leadingZeros = embedded.leadingZeros;
  }
  if (isIP(text) !== 6) return null;
  const cidr = parseCidr(`${text}/128`);
  const mapped = cidr !== null && cidr.network >> 32n === 0xffffn;
  return { normalized: text, leadingZeros, mapped };
}

/**
 * IsValidIPForLegacyField with StrictIPCIDRValidation on (beta, on by default in 1.36): an IP
 * ParseIPSloppy takes, without leading zeros, not IPv4-mapped; a value the old object already had
 * is accepted as it is.
 */
export function legacyIpErrors(path: string, value: string, validOld: readonly string[] = []): FieldErrorList {
  if (validOld.includes(value)) return [];
  const ip = parseIpSloppy(value);
  if (!ip) return [field.invalid(path, value, INVALID_IP_MESSAGE)];
  const errs: FieldErrorList = [];
  if (ip.leadingZeros) errs.push(field.invalid(path, value, 'must not have leading 0s'));
  if (ip.mapped) errs.push(field.invalid(path, value, 'must not be an IPv4-mapped IPv6 address'));
  return errs;
}

/** netutils.ParseCIDRSloppy: a sloppy IP and a decimal prefix length (leading zeros allowed). */
export function parseCidrSloppy(value: string): { ip: SloppyIp; cidr: Cidr; prefixZeros: boolean } | null {
  const slash = value.indexOf('/');
  if (slash < 0) return null;
  const ip = parseIpSloppy(value.slice(0, slash));
  const prefix = value.slice(slash + 1);
  if (!ip || !/^\d+$/.test(prefix)) return null;
  const cidr = parseCidr(`${ip.normalized}/${Number(prefix)}`);
  return cidr ? { ip, cidr, prefixZeros: prefix.length > 1 && prefix.startsWith('0') } : null;
}

/** netutils.IPFamilyOfCIDRString's answer as an address size (32 or 128), undefined when ParseCIDRSloppy fails. */
export function cidrBitsSloppy(value: string): 32 | 128 | undefined {
  return parseCidrSloppy(value)?.cidr.bits;
}

/** The first error strict parsing adds to a CIDR ParseCIDRSloppy takes (parseCIDR's strict branch). */
function strictCidrError(path: string, value: string, parsed: NonNullable<ReturnType<typeof parseCidrSloppy>>): FieldErrorList {
  if (parsed.ip.leadingZeros || parsed.prefixZeros) return [field.invalid(path, value, 'must not have leading 0s in IP or prefix length')];
  if (parsed.ip.mapped) return [field.invalid(path, value, 'must not have an IPv4-mapped IPv6 address')];
  const address = parseCidr(`${parsed.ip.normalized}/${parsed.cidr.bits}`)!.network;
  if (address !== parsed.cidr.network) return [field.invalid(path, value, 'must not have bits set beyond the prefix length')];
  return [];
}

/** IsValidCIDRForLegacyField with StrictIPCIDRValidation on; a value the old object already had is accepted. */
export function legacyCidrErrors(path: string, value: string, validOld: readonly string[] = []): FieldErrorList {
  if (validOld.includes(value)) return [];
  const parsed = parseCidrSloppy(value);
  if (!parsed) return [field.invalid(path, value, CIDR_MESSAGE)];
  return strictCidrError(path, value, parsed);
}

/** IsValidCIDR: strictly parsed, and written as net.IPNet.String() writes it. */
export function strictCidrErrors(path: string, value: string): FieldErrorList {
  const parsed = parseCidrSloppy(value);
  if (!parsed) return [field.invalid(path, value, CIDR_MESSAGE)];
  const errs = strictCidrError(path, value, parsed);
  if (errs.length > 0) return errs;
  const written = `${formatAddress(parsed.cidr.bits, parsed.cidr.network)}/${parsed.cidr.prefix}`;
  return written === value ? [] : [field.invalid(path, value, `must be in canonical form (${JSON.stringify(written)})`)];
}

/** netip.Addr.String() of an address: dotted quad, or RFC 5952 (lower case, the longest run of two or more zero groups as ::). */
export function formatAddress(bits: 32 | 128, value: bigint): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn));
  let bestAt = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestAt, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestAt < 0) return hex.join(':');
  return `${hex.slice(0, bestAt).join(':')}::${hex.slice(bestAt + bestLen).join(':')}`;
}

/** netip's String() of an address ParseIPSloppy read. */
function canonicalText(text: string): string {
  const v4 = isIP(text) === 4;
  return formatAddress(v4 ? 32 : 128, parseCidr(`${text}/${v4 ? 32 : 128}`)!.network);
}

/** What net.IP's String() writes for an address ParseIPSloppy read (an IPv4-mapped address as IPv4). */
function netIpString(ip: SloppyIp): string {
  return ip.mapped ? formatAddress(32, parseCidr(`${ip.normalized}/128`)!.network & 0xffffffffn) : canonicalText(ip.normalized);
}

/** GetWarningsForIP: a legacy field's IP in a form strict parsing refuses, or an IPv6 address not in RFC 5952 form. */
export function ipWarnings(path: string, value: string): string[] {
  const ip = parseIpSloppy(value);
  if (!ip) return [];
  if (ip.leadingZeros || ip.mapped) return [`${path}: non-standard IP address ${JSON.stringify(value)} is invalid: use ${JSON.stringify(netIpString(ip))}`];
  const canonical = canonicalText(ip.normalized);
  if (ip.normalized.includes(':') && canonical !== value) {
    return [`${path}: IPv6 address ${JSON.stringify(value)} should be in RFC 5952 canonical format (${JSON.stringify(canonical)})`];
  }
  return [];
}

/** GetWarningsForCIDR: bits past the prefix, a form strict parsing refuses, or an IPv6 prefix not in RFC 5952 form. */
export function cidrWarnings(path: string, value: string): string[] {
  const parsed = parseCidrSloppy(value);
  if (!parsed) return [];
  const { ip, cidr } = parsed;
  const warnings: string[] = [];
  const network = `${formatAddress(cidr.bits, cidr.network)}/${cidr.prefix}`;
  const address = parseCidr(`${ip.normalized}/${cidr.bits}`)!.network;
  if (address !== cidr.network) {
    warnings.push(
      `${path}: CIDR value ${JSON.stringify(value)} is ambiguous in this context (should be ${JSON.stringify(network)} or ${JSON.stringify(`${netIpString(ip)}/${cidr.bits}`)}?)`,
    );
  }
  if (ip.leadingZeros || parsed.prefixZeros || ip.mapped)
    warnings.push(`${path}: non-standard CIDR value ${JSON.stringify(value)} is invalid: use ${JSON.stringify(network)}`);
  const prefix = `${canonicalText(ip.normalized)}/${cidr.prefix}`;
  if (warnings.length === 0 && ip.normalized.includes(':') && prefix !== value) {
    warnings.push(`${path}: IPv6 CIDR value ${JSON.stringify(value)} should be in RFC 5952 canonical format (${JSON.stringify(prefix)})`);
  }
  return warnings;
}

const isMapped = (c: Cidr): boolean => c.bits === 128 && c.network >> 32n === 0xffffn;

/**
 * ValidateIPBlock's test, as net.IPNet does it: `inner`'s address lies in `outer` (an IPv4-mapped
 * IPv6 address or network counts as IPv4) and `outer`'s prefix is shorter than `inner`'s.
 */
export function isStrictSubset(inner: Cidr, outer: Cidr): boolean {
  // networkNumberAndMask: a mapped network is IPv4, with the last 32 bits of its mask.
  const net = isMapped(outer) ? { bits: 32, network: outer.network & 0xffffffffn, prefix: Math.max(outer.prefix - 96, 0) } : outer;
  const ip = isMapped(inner) ? { bits: 32, value: inner.network & 0xffffffffn } : { bits: inner.bits, value: inner.network };
  if (ip.bits !== net.bits) return false;
  const hostMask = (1n << BigInt(net.bits - net.prefix)) - 1n;
  return (ip.value & ~hostMask) === net.network && outer.prefix < inner.prefix;
}
