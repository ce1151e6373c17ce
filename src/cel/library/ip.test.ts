import { evaluate } from './test-eval';

describe('ip library', () => {
  test.each([
    ["isIP('127.0.0.1') && isIP('::1')", true],
    ["isIP('127.0.0.256') || isIP(':::1') || isIP('::ffff:1.2.3.4') || isIP('fe80::1%eth0') || isIP('01.2.3.4')", false],
    ["string(ip('2001:DB8:0:0:0::ABCD'))", '2001:db8::abcd'],
    ["string(ip('1:0:0:1:0:0:0:1'))", '1:0:0:1::1'],
    ["string(ip('1:0:0:2:3:0:0:4'))", '1::2:3:0:0:4'],
    ["string(ip('::1.2.3.4'))", '::102:304'],
    ["string(ip('1:2:3:4:5:6:7::'))", '1:2:3:4:5:6:7:0'],
    ["ip('::1') == ip('0:0:0:0:0:0:0:1')", true],
    ["ip('::1') == ip('::2')", false],
    ["ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd')", true],
    ["ip.isCanonical('2001:DB8::ABCD') || ip.isCanonical('2001:db8::0:0:0:abcd')", false],
    ["ip('127.0.0.1').family() == 4 && ip('::1').family() == 6", true],
    ["ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() && !ip('::1').isUnspecified()", true],
    ["ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && !ip('192.168.0.1').isLoopback()", true],
    ["ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast()", true],
    ["ip('224.0.1.1').isLinkLocalMulticast() || ip('fd00::1').isLinkLocalMulticast()", false],
    ["ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()", true],
    ["ip('192.168.0.1').isGlobalUnicast() && ip('2001:db8::abcd').isGlobalUnicast()", true],
    ["ip('255.255.255.255').isGlobalUnicast() || ip('ff00::1').isGlobalUnicast() || ip('0.0.0.0').isGlobalUnicast()", false],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test.each([
    ["ip('127.0.0.256')", 'IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255'],
    [
      "ip(':::1')",
      'IP Address ":::1" parse error during conversion from string: ParseAddr(":::1"): each colon-separated field must have at least one digit (at ":1")',
    ],
    ["ip('192.168.0.1.0')", 'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long'],
    [
      "ip.isCanonical('2001:db8:::68')",
      'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    ],
    [
      "ip('1:2:3:4:5:6:7:8:9')",
      'IP Address "1:2:3:4:5:6:7:8:9" parse error during conversion from string: ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")',
    ],
    ["ip('1::2::3')", 'IP Address "1::2::3" parse error during conversion from string: ParseAddr("1::2::3"): multiple :: in address (at ":3")'],
    [
      "ip('12345::1')",
      'IP Address "12345::1" parse error during conversion from string: ParseAddr("12345::1"): each colon-separated field must have at most 4 hex digits (at "12345::1")',
    ],
    ["ip('1.2.3')", 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short'],
    ["ip('01.2.3.4')", 'IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'],
    ["ip('foo')", 'IP Address "foo" parse error during conversion from string: ParseAddr("foo"): unable to parse IP'],
    ["ip('::ffff:1.2.3.4')", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'],
    ["ip('fe80::1%eth0')", 'IP address "fe80::1%eth0" with zone value is not allowed'],
  ])('%s is an error', (source, message) => {
    expect(evaluate(source)).toEqual({ error: message });
  });

  test("an object's data cannot pass for an address", () => {
    const forged = { object: { spec: { '0': 'ip', '@kind': 'ip', addr: '1.2.3.4' } } };
    expect(evaluate('object.spec.family()', forged)).toEqual({ error: "found no matching overload for 'family' applied to '(map)'" });
    expect(evaluate('string(object.spec)', forged)).toEqual({ error: "found no matching overload for 'string' applied to '(map)'" });
  });
});
