import { isProxyableIp } from './addresses';

test('only global unicast addresses are proxyable; loopback only when allowed', () => {
  for (const ip of ['10.0.0.1', '192.168.1.2', '8.8.8.8', '2001:db8::1']) expect(isProxyableIp(ip, false)).toBe(true);
  for (const ip of ['0.0.0.0', '169.254.1.1', '224.0.0.1', '255.255.255.255', '::', 'fe80::1', 'ff02::1', 'web', ''])
    expect(isProxyableIp(ip, true)).toBe(false);
  expect(isProxyableIp('127.0.0.1', false)).toBe(false);
  expect(isProxyableIp('127.0.0.1', true)).toBe(true);
  expect(isProxyableIp('::1', false)).toBe(false);
  expect(isProxyableIp('::1', true)).toBe(true);
});

test('an address is read as Go reads it: an IPv4-mapped or long-form IPv6 address is checked as what it is', () => {
  for (const ip of ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:0:0:1', '0::1']) expect(isProxyableIp(ip, false)).toBe(false);
  for (const ip of ['::ffff:169.254.169.254', '::ffff:0.0.0.0', '::ffff:224.0.0.1', 'fe80::1%eth0', 'FE80::1']) expect(isProxyableIp(ip, true)).toBe(false);
  expect(isProxyableIp('::ffff:10.0.0.1', false)).toBe(true);
  // Go's IsGlobalUnicast takes 240.0.0.0/4 as unicast; only 255.255.255.255 is the broadcast.
  expect(isProxyableIp('240.0.0.1', false)).toBe(true);
});
