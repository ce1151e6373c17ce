import { isIP } from 'node:net';
import { formatAddress, parseCidr } from '../../resources/network-validation';

/** Service IP arithmetic on bigints, for both families (k8s.io/utils/net and the ipallocator's range maths). */

export type IpFamily = 'IPv4' | 'IPv6';

export interface Ip {
  family: IpFamily;
  value: bigint;
}

export function familyOfBits(bits: 32 | 128): IpFamily {
  return bits === 32 ? 'IPv4' : 'IPv6';
}

export function parseIp(text: string): Ip | null {
  const family = isIP(text);
  if (family === 0) return null;
  const cidr = parseCidr(`${text}/${family === 4 ? 32 : 128}`);
  return cidr ? { family: familyOfBits(cidr.bits), value: cidr.network } : null;
}

/** netip.Addr.String(): dotted quad, or RFC 5952. */
export function formatIp(ip: Ip): string {
  return formatAddress(ip.family === 'IPv4' ? 32 : 128, ip.value);
}

/** The canonical form of an IP (what IPAddress names must be), or null when the text is not one. */
export function canonicalIp(text: string): string | null {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : null;
}

/**
 * The addresses of a service CIDR the allocator hands out, as kube's ipallocator.NewIPAllocator:
 * the network address is never used, nor the broadcast address of an IPv4 range; the first
 * `staticBand` offsets are kept for clusterIPs asked for by value (ServiceIPStaticSubrange).
 */
export interface ServiceRange {
  cidr: string;
  family: IpFamily;
  /** The first usable address (the network address + 1). */
  first: bigint;
  /** How many usable addresses follow `first`. */
  size: bigint;
  staticBand: bigint;
}

export function serviceRange(cidrText: string): ServiceRange | null {
  const cidr = parseCidr(cidrText);
  if (!cidr) return null;
  const family = familyOfBits(cidr.bits);
  const total = 1n << BigInt(cidr.bits - cidr.prefix);
  const size = family === 'IPv4' ? (total > 2n ? total - 2n : 0n) : total > 1n ? total - 1n : 0n;
  return { cidr: cidrText, family, first: cidr.network + 1n, size, staticBand: staticBand(total) };
}

/** calculateRangeOffset: min(max(16, size/16), 256), and 0 for ranges smaller than 16. */
function staticBand(total: bigint): bigint {
  if (total < 16n) return 0n;
  const offset = total / 16n;
  if (offset < 16n) return 16n;
  return offset > 256n ? 256n : offset;
}

export function rangeContains(range: ServiceRange, ip: Ip): boolean {
  return ip.family === range.family && ip.value >= range.first && ip.value < range.first + range.size;
}

export function ipAt(range: ServiceRange, offset: bigint): Ip {
  return { family: range.family, value: range.first + offset };
}

/**
 * --service-cluster-ip-range: one CIDR or two of different families, primary first; a message
 * when it is not (kube-apiserver's ServiceClusterIPRange checks).
 */
export function parseServiceClusterIpRange(text: string): string[] | string {
  const cidrs = text
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  if (cidrs.length === 0 || cidrs.length > 2) return 'must be one CIDR, or two of different IP families';
  const ranges = cidrs.map(serviceRange);
  if (ranges.some((r) => r === null || r.size === 0n)) return 'must be valid CIDRs with usable addresses';
  if (ranges.length === 2 && ranges[0]!.family === ranges[1]!.family) return 'the two CIDRs must be of different IP families (dual stack)';
  return cidrs;
}
