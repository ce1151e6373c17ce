import { isIP } from 'node:net';

/**
 * net.IP.IsGlobalUnicast, what kube's proxies require of the address they dial (isProxyableIP;
 * "address not allowed" otherwise): not unspecified, loopback, link-local, multicast or broadcast.
 * With --allow-loopback-endpoints loopback addresses pass, for backends on 127.0.0.1 in tests.
 */
export function isProxyableIp(address: string, allowLoopback: boolean): boolean {
  const family = isIP(address);
  if (family === 4) {
    const [a, b] = address.split('.').map(Number);
    if (a === 127) return allowLoopback;
    return !(address === '0.0.0.0' || address === '255.255.255.255' || (a === 169 && b === 254) || a >= 224);
  }
  if (family === 6) {
    const lower = address.toLowerCase();
    if (lower === '::1') return allowLoopback;
    return !(
      lower === '::' ||
      lower.startsWith('fe8') ||
      lower.startsWith('fe9') ||
      lower.startsWith('fea') ||
      lower.startsWith('feb') ||
      lower.startsWith('ff')
    );
  }
  return false;
}
