import { evaluate } from './test-eval';

describe('cidr library', () => {
  test.each([
    ["isCIDR('192.168.0.0/16') && isCIDR('::1/128') && isCIDR('192.168.0.1/16')", true],
    ["isCIDR('192.168.0.0/33') || isCIDR('::1/129') || isCIDR('::ffff:1.2.3.4/24') || isCIDR('10.0.0.0')", false],
    ["cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && cidr('192.168.0.0/24').containsIP('192.168.0.1')", true],
    ["cidr('192.168.0.0/24').containsIP(ip('192.168.1.1')) || cidr('192.168.0.0/24').containsIP('::1')", false],
    ["cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24')) && cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')", true],
    ["cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24') || cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')", false],
    ["cidr('192.168.0.0/16').containsCIDR('192.168.0.1/32') && cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/33'))", true],
    ["cidr('2001:db8::/32').containsCIDR('2001:db8::/31') || cidr('10.0.0.0/8').containsCIDR('2001:db8::/64')", false],
    ["string(cidr('192.168.0.1/24').ip())", '192.168.0.1'],
    ["cidr('::1/128').ip().family()", 6],
    ["string(cidr('192.168.0.1/24').masked())", '192.168.0.0/24'],
    ["string(cidr('2001:DB8::1/32'))", '2001:db8::1/32'],
    ["cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()", true],
    ["cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", false],
    ["cidr('192.168.0.0/16').prefixLength()", 16],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test.each([
    [
      "cidr('192.168.0.0/33')",
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/33"): prefix length out of range',
    ],
    [
      "cidr('10.0.0.0')",
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no \'/\'',
    ],
    [
      "cidr('192.168.0.0/')",
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    ],
    [
      "cidr('10.0.0.0/+8')",
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/+8"): bad bits after slash: "+8"',
    ],
    ["cidr('::ffff:1.2.3.4/24')", 'network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.4/24" is not allowed'],
    ["cidr('10.0.0.0/8').containsIP('x')", 'IP Address "x" parse error during conversion from string: ParseAddr("x"): unable to parse IP'],
  ])('%s is an error', (source, message) => {
    expect(evaluate(source)).toEqual({ error: message });
  });
});
