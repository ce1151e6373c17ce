import { fieldErrorMessage } from '../api/field-errors';
import { addressErrors } from './endpoint-addresses';

const messages = (type: string, address: string, loopbackAllowed = false) =>
  addressErrors(type, address, 'endpoints[0].addresses[0]', loopbackAllowed).map(fieldErrorMessage);

test('IPv4 and IPv6 addresses of their own family, not special', () => {
  expect(messages('IPv4', '10.1.2.3')).toEqual([]);
  expect(messages('IPv4', 'fd00::1')).toEqual(['endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address']);
  expect(messages('IPv4', '127.0.0.1')).toEqual([
    'endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
  expect(messages('IPv4', '0.0.0.0')).toEqual(['endpoints[0].addresses[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)']);
  expect(messages('IPv6', 'fe80::1')).toEqual([
    'endpoints[0].addresses[0]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
  ]);
  expect(messages('IPv6', 'fd00::1')).toEqual([]);
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
