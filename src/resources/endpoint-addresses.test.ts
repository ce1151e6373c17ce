import { fieldErrorMessage } from '../api/field-errors';
import { addressErrors } from './endpoint-addresses';

const messages = (type: string, address: string, loopbackAllowed = false) =>
  addressErrors(type, address, 'endpoints[0].addresses[0]', loopbackAllowed).map(fieldErrorMessage);

test('IPv4 and IPv6 addresses of their own family, not special', () => {
  expect(messages('IPv4', '10.1.2.3')).toEqual([]);
  expect(messages('IPv4', 'fd00::1')).toEqual(['endpoints[0].addresses[0]: Invalid value: "fd00::1": must be an IPv4 address']);
  expect(messages('IPv6', '10.1.2.3')).toEqual(['endpoints[0].addresses[0]: Invalid value: "10.1.2.3": must be an IPv6 address']);
  expect(messages('IPv4', '127.0.0.1')).toEqual([
    'endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
  expect(messages('IPv4', '0.0.0.0')).toEqual(['endpoints[0].addresses[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)']);
  expect(messages('IPv6', 'fe80::1')).toEqual([
    'endpoints[0].addresses[0]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
  ]);
  expect(messages('IPv6', 'fd00::1')).toEqual([]);
});

test('an address strict parsing refuses is named once, by IsValidIPForLegacyField', () => {
  expect(messages('IPv4', 'nope')).toEqual(['endpoints[0].addresses[0]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  expect(messages('IPv4', '127.0.0.01')).toEqual(['endpoints[0].addresses[0]: Invalid value: "127.0.0.01": must not have leading 0s']);
  expect(messages('IPv6', '::ffff:10.1.2.3')).toEqual(['endpoints[0].addresses[0]: Invalid value: "::ffff:10.1.2.3": must not be an IPv4-mapped IPv6 address']);
});

test('link-local multicast is any ffX2:: scope, as net.IP reads it', () => {
  expect(messages('IPv6', 'ff12::1')).toEqual([
    'endpoints[0].addresses[0]: Invalid value: "ff12::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
  ]);
  expect(messages('IPv6', 'ff05::1')).toEqual([]);
});

test('loopback addresses, when allowed, and only they', () => {
  expect(messages('IPv4', '127.0.0.1', true)).toEqual([]);
  expect(messages('IPv6', '::1', true)).toEqual([]);
  expect(messages('IPv4', '0.0.0.0', true)).toEqual(['endpoints[0].addresses[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)']);
});

test('FQDN addresses have two labels at least', () => {
  expect(messages('FQDN', 'db.example.com.')).toEqual([]);
  expect(messages('FQDN', 'db')).toEqual(['endpoints[0].addresses[0]: Invalid value: "db": should be a domain with at least two segments separated by dots']);
});
