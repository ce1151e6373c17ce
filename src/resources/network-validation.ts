import { isIP } from 'node:net';

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

export function isIpAddress(value: string): boolean {
  return isIP(value) !== 0;
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

/** Whether `inner` lies inside `outer` and is strictly smaller. */
export function isStrictSubset(inner: Cidr, outer: Cidr): boolean {
  if (inner.bits !== outer.bits || inner.prefix <= outer.prefix) return false;
  const hostMask = (1n << BigInt(outer.bits - outer.prefix)) - 1n;
  return (inner.network & ~hostMask) === outer.network;
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
