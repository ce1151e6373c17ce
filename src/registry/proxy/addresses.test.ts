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
