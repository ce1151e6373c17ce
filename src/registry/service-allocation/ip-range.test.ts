import { canonicalIp, formatIp, ipAt, parseIp, parseServiceClusterIpRange, rangeContains, serviceRange } from './ip-range';

describe('service IP ranges', () => {
  test('addresses print as netip.Addr does: dotted quads, RFC 5952 for IPv6', () => {
    expect(canonicalIp('10.96.0.1')).toBe('10.96.0.1');
    expect(canonicalIp('FD00:0:0:0:0:0:0:1')).toBe('fd00::1');
    expect(canonicalIp('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIp('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(canonicalIp('::')).toBe('::');
    expect(canonicalIp('10.096.0.1')).toBeNull();
    expect(canonicalIp('nope')).toBeNull();
  });

  test('an IPv4 range leaves out the network and broadcast addresses; IPv6 only the network address', () => {
    const v4 = serviceRange('10.0.0.0/28')!;
    expect(formatIp(ipAt(v4, 0n))).toBe('10.0.0.1');
    expect(v4.size).toBe(14n);
    expect(rangeContains(v4, parseIp('10.0.0.14')!)).toBe(true);
    expect(rangeContains(v4, parseIp('10.0.0.15')!)).toBe(false);
    expect(rangeContains(v4, parseIp('10.0.0.0')!)).toBe(false);
    const v6 = serviceRange('fd00::/120')!;
    expect(v6.size).toBe(255n);
    expect(formatIp(ipAt(v6, 254n))).toBe('fd00::ff');
  });

  test('the static band is min(max(16, size/16), 256) addresses, none below 16', () => {
    expect(serviceRange('10.96.0.0/12')!.staticBand).toBe(256n);
    expect(serviceRange('10.0.0.0/24')!.staticBand).toBe(16n);
    expect(serviceRange('10.0.0.0/20')!.staticBand).toBe(256n);
    expect(serviceRange('10.0.0.0/29')!.staticBand).toBe(0n);
  });

  test('--service-cluster-ip-range: one CIDR or two of different families', () => {
    expect(parseServiceClusterIpRange('10.96.0.0/12')).toEqual(['10.96.0.0/12']);
    expect(parseServiceClusterIpRange('10.96.0.0/12,fd00::/108')).toEqual(['10.96.0.0/12', 'fd00::/108']);
    expect(parseServiceClusterIpRange('10.96.0.0/12,10.1.0.0/16')).toBe('the two CIDRs must be of different IP families (dual stack)');
    expect(parseServiceClusterIpRange('10.96.0.0')).toBe('must be valid CIDRs with usable addresses');
  });
});
