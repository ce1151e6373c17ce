import {
  cidrWarnings,
  ipWarnings,
  isStrictSubset,
  isValidPortName,
  isValidPortNum,
  isWildcardDns1123Subdomain,
  legacyCidrErrors,
  legacyIpErrors,
  parseCidr,
  parseCidrSloppy,
  parseIpSloppy,
  strictCidrErrors,
} from './network-validation';
import { validateIntOrPercent } from './poddisruptionbudgets';

describe('network validation', () => {
  test('port numbers and names', () => {
    expect(isValidPortNum(80)).toEqual([]);
    expect(isValidPortNum(0)).toEqual(['must be between 1 and 65535, inclusive']);
    expect(isValidPortName('http')).toEqual([]);
    expect(isValidPortName('-8080--')).toEqual([
      'must contain at least one letter (a-z)',
      'must not contain consecutive hyphens',
      'must not begin or end with a hyphen',
    ]);
  });

  test('CIDRs: IPv4 and IPv6, network address, strict subsets', () => {
    expect(parseCidr('10.1.2.3/8')).toEqual({ bits: 32, network: 10n << 24n, prefix: 8 });
    expect(parseCidr('10.0.0.0')).toBeNull();
    expect(parseCidr('10.0.0.0/33')).toBeNull();
    expect(parseCidr('2001:db8::/64')?.network).toBe(0x20010db8n << 96n);
    const outer = parseCidr('10.0.0.0/8')!;
    expect(isStrictSubset(parseCidr('10.1.0.0/16')!, outer)).toBe(true);
    expect(isStrictSubset(parseCidr('10.0.0.0/8')!, outer)).toBe(false);
    expect(isStrictSubset(parseCidr('11.0.0.0/16')!, outer)).toBe(false);
    expect(isStrictSubset(parseCidr('2001:db8::/96')!, parseCidr('2001:db8::/64')!)).toBe(true);
  });

  test('wildcard hosts', () => {
    expect(isWildcardDns1123Subdomain('*.example.com')).toEqual([]);
    expect(isWildcardDns1123Subdomain('foo.*.com')[0]).toMatch(/^a wildcard DNS-1123 subdomain must start with '\*\.'/);
  });

  test('PDB int-or-percent values', () => {
    expect(validateIntOrPercent(1, 'spec.minAvailable')).toEqual([]);
    expect(validateIntOrPercent('50%', 'spec.minAvailable')).toEqual([]);
    expect(validateIntOrPercent(-1, 'spec.minAvailable')).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.minAvailable', value: -1, detail: 'must be greater than or equal to 0' },
    ]);
    expect(validateIntOrPercent('150%', 'p')[0].detail).toBe('must not be greater than 100%');
    expect(validateIntOrPercent('half', 'p')[0].detail).toMatch(/^a valid percent string/);
  });

  test("ParseIPSloppy and StrictIPCIDRValidation's legacy-field checks", () => {
    const details = (errs: { detail?: string }[]) => errs.map((e) => e.detail);
    expect(parseIpSloppy('010.001.2.3')).toEqual({ normalized: '10.1.2.3', leadingZeros: true, mapped: false });
    expect(parseIpSloppy('::ffff:1.2.3.4')).toEqual({ normalized: '::ffff:1.2.3.4', leadingZeros: false, mapped: true });
    expect(parseIpSloppy('1.2.3.256')).toBeNull();
    expect(parseIpSloppy('fe80::1%eth0')).toBeNull();
    expect(details(legacyIpErrors('ip', '10.0.0.1'))).toEqual([]);
    expect(details(legacyIpErrors('ip', '10.0.0.01'))).toEqual(['must not have leading 0s']);
    expect(details(legacyIpErrors('ip', '10.0.0.01', ['10.0.0.01']))).toEqual([]);
    expect(details(legacyIpErrors('ip', 'x'))).toEqual(['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
    expect(details(legacyCidrErrors('c', '10.0.0.1/8'))).toEqual(['must not have bits set beyond the prefix length']);
    expect(details(legacyCidrErrors('c', '10.0.0.0/08'))).toEqual(['must not have leading 0s in IP or prefix length']);
    expect(details(legacyCidrErrors('c', '::ffff:10.0.0.0/104'))).toEqual(['must not have an IPv4-mapped IPv6 address']);
    expect(details(strictCidrErrors('c', 'FD00::/64'))).toEqual(['must be in canonical form ("fd00::/64")']);
    expect(details(strictCidrErrors('c', '10.0.0.0/8'))).toEqual([]);
  });

  test('strict subsets as net.IPNet.Contains reads them: an IPv4-mapped network counts as IPv4', () => {
    const cidr = (text: string) => parseCidrSloppy(text)!.cidr;
    expect(isStrictSubset(cidr('10.1.0.0/16'), cidr('10.0.0.0/8'))).toBe(true);
    expect(isStrictSubset(cidr('::ffff:10.2.0.0/112'), cidr('10.0.0.0/8'))).toBe(true);
    expect(isStrictSubset(cidr('::ffff:10.2.0.0/112'), cidr('fd00::/8'))).toBe(false);
    expect(isStrictSubset(cidr('10.0.0.0/8'), cidr('10.0.0.0/8'))).toBe(false);
    expect(isStrictSubset(cidr('11.0.0.0/16'), cidr('10.0.0.0/8'))).toBe(false);
  });

  test("GetWarningsForIP and GetWarningsForCIDR's words", () => {
    expect(ipWarnings('spec.x', '2001:DB8:0:0::1')).toEqual(['spec.x: IPv6 address "2001:DB8:0:0::1" should be in RFC 5952 canonical format ("2001:db8::1")']);
    expect(ipWarnings('spec.x', '010.0.0.1')).toEqual(['spec.x: non-standard IP address "010.0.0.1" is invalid: use "10.0.0.1"']);
    expect(ipWarnings('spec.x', '::ffff:1.2.3.4')).toEqual(['spec.x: non-standard IP address "::ffff:1.2.3.4" is invalid: use "1.2.3.4"']);
    expect(ipWarnings('spec.x', '10.0.0.1')).toEqual([]);
    expect(cidrWarnings('spec.y', '10.0.0.1/8')).toEqual([
      'spec.y: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)',
    ]);
    expect(cidrWarnings('spec.y', '010.0.0.0/8')).toEqual(['spec.y: non-standard CIDR value "010.0.0.0/8" is invalid: use "10.0.0.0/8"']);
    expect(cidrWarnings('spec.y', 'FD00::/64')).toEqual(['spec.y: IPv6 CIDR value "FD00::/64" should be in RFC 5952 canonical format ("fd00::/64")']);
  });
});
