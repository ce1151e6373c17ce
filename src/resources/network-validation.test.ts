import { isStrictSubset, isValidPortName, isValidPortNum, isWildcardDns1123Subdomain, parseCidr } from './network-validation';
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
});
