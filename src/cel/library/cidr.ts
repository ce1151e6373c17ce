import { CelScalar } from '@bufbuild/cel';
import { addrString, is4In6, maskedAddr, parseAddr, parsePrefix, prefixContains, type Prefix } from './net-addr';
import { IP, addrOf, ipValue, parseIPAddr } from './ip';
import { field, func, typedFunc, typedMethod, typedValue, type Overload, type TypedValue } from './typed-values';

/**
 * Kubernetes' CIDR library (apiserver/pkg/cel/library/cidr.go): `cidr()`, `isCIDR()`, `string()`,
 * and on a prefix `containsIP`, `containsCIDR`, `ip`, `prefixLength`, `masked`. A prefix keeps its
 * address as written (`cidr('10.0.0.1/8')` is not masked), in canonical text.
 */

const { STRING, BOOL, INT } = CelScalar;
const CIDR = 'cidr';

/** library.parseCIDR, whose error the conversion wraps once more (as kube's does). */
function parseCIDR(raw: string): Prefix {
  let prefix: Prefix;
  try {
    prefix = parsePrefix(raw);
  } catch (err) {
    throw new Error(`network address parse error during conversion from string: ${(err as Error).message}`);
  }
  if (is4In6(prefix.addr)) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return prefix;
}

function stringToCIDR(raw: string): Prefix {
  try {
    return parseCIDR(raw);
  } catch (err) {
    throw new Error(`network address parse error during conversion from string: ${(err as Error).message}`);
  }
}

const cidrValue = (p: Prefix): TypedValue => typedValue(CIDR, { prefix: `${addrString(p.addr)}/${p.bits}` });

function prefixOf(cidr: unknown): Prefix {
  const text = field<string>(cidr, 'prefix');
  const slash = text.lastIndexOf('/');
  return { addr: parseAddr(text.slice(0, slash)), bits: Number(text.slice(slash + 1)) };
}

/** cidrContainsCIDR (with kubernetes#130450, 1.33): the other prefix's address under this mask is this network, and it is no wider. */
function containsCIDR(outer: Prefix, inner: Prefix): boolean {
  const masked = addrString(maskedAddr(outer.addr, outer.bits));
  const sameFamily = outer.addr.bytes.length === inner.addr.bytes.length;
  return sameFamily && masked === addrString(maskedAddr(inner.addr, outer.bits)) && outer.bits <= inner.bits;
}

function isValid(raw: string): boolean {
  try {
    parseCIDR(raw);
    return true;
  } catch {
    return false;
  }
}

export const cidrLibrary: Overload[] = [
  func('cidr', [STRING], CIDR, (raw: string) => cidrValue(stringToCIDR(raw))),
  func('isCIDR', [STRING], BOOL, isValid),
  typedFunc('string', [CIDR], STRING, (cidr) => field<string>(cidr, 'prefix')),
  typedMethod(CIDR, 'containsIP', [STRING], BOOL, (cidr, raw: string) => prefixContains(prefixOf(cidr), parseIPAddr(raw))),
  typedMethod(CIDR, 'containsIP', [IP], BOOL, (cidr, ip) => prefixContains(prefixOf(cidr), addrOf(ip))),
  typedMethod(CIDR, 'containsCIDR', [STRING], BOOL, (cidr, raw: string) => containsCIDR(prefixOf(cidr), stringToCIDR(raw))),
  typedMethod(CIDR, 'containsCIDR', [CIDR], BOOL, (cidr, other) => containsCIDR(prefixOf(cidr), prefixOf(other))),
  typedMethod(CIDR, 'ip', [], IP, (cidr) => ipValue(prefixOf(cidr).addr)),
  typedMethod(CIDR, 'prefixLength', [], INT, (cidr) => BigInt(prefixOf(cidr).bits)),
  typedMethod(CIDR, 'masked', [], CIDR, (cidr) => {
    const p = prefixOf(cidr);
    return cidrValue({ addr: maskedAddr(p.addr, p.bits), bits: p.bits });
  }),
];
