import { CelScalar } from '@bufbuild/cel';
import { addrString, is4, is4In6, parseAddr, type Addr } from './net-addr';
import { field, func, typedFunc, typedMethod, typedValue, type Overload, type TypedValue } from './typed-values';

/**
 * Kubernetes' IP library (apiserver/pkg/cel/library/ip.go): `ip()`, `isIP()`, `ip.isCanonical()`,
 * `string()`, and on an address `family`, `isUnspecified`, `isLoopback`, `isLinkLocalMulticast`,
 * `isLinkLocalUnicast`, `isGlobalUnicast`. An address is kept in its canonical text, so `==` is
 * netip.Addr equality.
 */

const { STRING, BOOL, INT } = CelScalar;
export const IP = 'ip';

/** library.parseIPAddr: netip.ParseAddr without zones or IPv4-mapped IPv6 addresses. */
export function parseIPAddr(raw: string): Addr {
  let addr: Addr;
  try {
    addr = parseAddr(raw);
  } catch (err) {
    throw new Error(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(err as Error).message}`);
  }
  if (addr.zone) throw new Error(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (is4In6(addr)) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return addr;
}

export const ipValue = (addr: Addr): TypedValue => typedValue(IP, { addr: addrString(addr) });
export const addrOf = (ip: unknown): Addr => parseAddr(field<string>(ip, 'addr'));

function isValid(raw: string): boolean {
  try {
    parseIPAddr(raw);
    return true;
  } catch {
    return false;
  }
}

const isLoopback = (a: Addr) => (is4(a) ? a.bytes[0] === 127 : addrString(a) === '::1');
const isMulticast = (a: Addr) => (is4(a) ? (a.bytes[0] & 0xf0) === 0xe0 : a.bytes[0] === 0xff);
const isLinkLocalUnicast = (a: Addr) => (is4(a) ? a.bytes[0] === 169 && a.bytes[1] === 254 : a.bytes[0] === 0xfe && (a.bytes[1] & 0xc0) === 0x80);
const isUnspecified = (a: Addr) => a.bytes.every((b) => b === 0);

/** netip.Addr.IsGlobalUnicast: not unspecified, broadcast, loopback, multicast or link-local unicast. */
function isGlobalUnicast(a: Addr): boolean {
  if (is4(a) && a.bytes.every((b) => b === 255)) return false;
  return !isUnspecified(a) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);
}

const check = (test: (a: Addr) => boolean) => (ip: unknown) => test(addrOf(ip));

export const ipLibrary: Overload[] = [
  func('ip', [STRING], IP, (raw: string) => ipValue(parseIPAddr(raw))),
  func('isIP', [STRING], BOOL, isValid),
  func('ip.isCanonical', [STRING], BOOL, (raw: string) => addrString(parseIPAddr(raw)) === raw),
  typedFunc('string', [IP], STRING, (ip) => field<string>(ip, 'addr')),
  typedMethod(IP, 'family', [], INT, (ip) => (is4(addrOf(ip)) ? 4n : 6n)),
  typedMethod(IP, 'isUnspecified', [], BOOL, check(isUnspecified)),
  typedMethod(IP, 'isLoopback', [], BOOL, check(isLoopback)),
  typedMethod(
    IP,
    'isLinkLocalMulticast',
    [],
    BOOL,
    check((a) => (is4(a) ? a.bytes[0] === 224 && a.bytes[1] === 0 && a.bytes[2] === 0 : a.bytes[0] === 0xff && (a.bytes[1] & 0x0f) === 0x02)),
  ),
  typedMethod(IP, 'isLinkLocalUnicast', [], BOOL, check(isLinkLocalUnicast)),
  typedMethod(IP, 'isGlobalUnicast', [], BOOL, check(isGlobalUnicast)),
];
