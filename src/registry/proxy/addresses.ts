import { isIP } from 'node:net';
import { is4In6, parseAddr, type Addr } from '../../cel/library/net-addr';

/** The address as Go's net.IP methods see it: an IPv4-mapped IPv6 address is its IPv4 address. */
function goAddress(address: string): number[] | null {
  // Only what the dialer also takes as a literal (no legacy IPv4 forms, which it would resolve).
  if (isIP(address) === 0) return null;
  let addr: Addr;
  try {
    addr = parseAddr(address);
  } catch {
    return null;
  }
  if (addr.zone) return null;
  return is4In6(addr) ? addr.bytes.slice(12) : addr.bytes;
}

/**
 * net.IP.IsGlobalUnicast, what kube's proxies require of the address they dial (isProxyableIP;
 * "address not allowed" otherwise): not unspecified, loopback, link-local, multicast or the IPv4
 * broadcast, however the address is written (`::ffff:127.0.0.1` and `0:0:0:0:0:0:0:1` are
 * loopback, as Go reads them). With --allow-loopback-endpoints loopback addresses pass, for
 * backends on 127.0.0.1 in tests.
 */
export function isProxyableIp(address: string, allowLoopback: boolean): boolean {
  const b = goAddress(address);
  if (!b) return false;
  if (b.length === 4) {
    if (b[0] === 127) return allowLoopback;
    const unspecified = b.every((x) => x === 0);
    const broadcast = b.every((x) => x === 255);
    const linkLocal = b[0] === 169 && b[1] === 254;
    const multicast = b[0] >= 224 && b[0] <= 239;
    return !(unspecified || broadcast || linkLocal || multicast);
  }
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(15) && b[15] === 1) return allowLoopback;
  const unspecified = zeroUpTo(16);
  const linkLocal = b[0] === 0xfe && (b[1] & 0xc0) === 0x80;
  const multicast = b[0] === 0xff;
  return !(unspecified || linkLocal || multicast);
}
