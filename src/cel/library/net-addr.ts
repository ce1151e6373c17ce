/**
 * IP addresses and prefixes as Go's net/netip parses and prints them (netip.ParseAddr,
 * netip.ParsePrefix, Addr.String), with their error texts: Kubernetes' ip and cidr CEL libraries
 * are built on them.
 */

export interface Addr {
  /** 4 or 16 bytes. */
  bytes: number[];
  zone: string;
}

export class ParseError extends Error {}

const quote = (s: string): string => JSON.stringify(s);

function addrError(input: string, msg: string, at = ''): ParseError {
  return new ParseError(`ParseAddr(${quote(input)}): ${msg}${at ? ` (at ${quote(at)})` : ''}`);
}

interface Failure {
  msg: string;
  at: string;
}

/** netip.parseIPv4Fields: four decimal fields, no leading zeros. */
function parseIPv4(s: string): number[] | Failure {
  const fields: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) return { msg: 'IPv4 field has octet with leading zero', at: '' };
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) return { msg: 'IPv4 field has value >255', at: '' };
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return { msg: 'IPv4 field must have at least one digit', at: s.slice(i) };
      if (fields.length === 3) return { msg: 'IPv4 address too long', at: '' };
      fields.push(val);
      val = 0;
      digits = 0;
    } else {
      return { msg: 'unexpected character', at: s.slice(i) };
    }
  }
  if (fields.length < 3) return { msg: 'IPv4 address too short', at: '' };
  fields.push(val);
  return fields;
}

const isFailure = (v: number[] | Failure): v is Failure => !Array.isArray(v);

/** netip.parseIPv6: hex fields, one `::`, an IPv4 tail, an optional zone. */
function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const percent = s.indexOf('%');
  if (percent >= 0) {
    zone = s.slice(percent + 1);
    s = s.slice(0, percent);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    while (off < s.length) {
      const v = parseInt(s[off], 16);
      if (Number.isNaN(v)) break;
      if (off > 3) throw addrError(input, 'each colon-separated field must have at most 4 hex digits', s);
      acc = (acc << 4) + v;
      off++;
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const v4 = parseIPv4(s);
      if (isFailure(v4)) throw addrError(input, v4.msg, v4.at);
      ip.splice(i, 4, ...v4);
      i += 4;
      s = '';
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    const tail = ip.slice(ellipsis, i);
    ip.fill(0, ellipsis, 16);
    ip.splice(ellipsis + n, tail.length, ...tail);
  } else if (ellipsis >= 0) {
    throw addrError(input, 'the :: must expand to at least one field of zeros');
  }
  return { bytes: ip.slice(0, 16), zone };
}

/** netip.ParseAddr. */
export function parseAddr(s: string): Addr {
  for (const c of s) {
    if (c === '.') {
      const v4 = parseIPv4(s);
      if (isFailure(v4)) throw addrError(s, v4.msg, v4.at);
      return { bytes: v4, zone: '' };
    }
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

export const is4 = (a: Addr): boolean => a.bytes.length === 4;

/** Addr.Is4In6: ::ffff:a.b.c.d. */
export function is4In6(a: Addr): boolean {
  return !is4(a) && a.bytes.slice(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** Addr.String: dotted quad, or RFC 5952 (lower case, longest run of two or more zero fields as `::`). */
export function addrString(a: Addr): string {
  if (is4(a)) return a.bytes.join('.');
  const fields = Array.from({ length: 8 }, (_, i) => (a.bytes[2 * i] << 8) | a.bytes[2 * i + 1]);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && fields[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = (from: number, to: number) =>
    fields
      .slice(from, to)
      .map((f) => f.toString(16))
      .join(':');
  const text = bestStart < 0 ? hex(0, 8) : `${hex(0, bestStart)}::${hex(bestStart + bestLen, 8)}`;
  return a.zone ? `${text}%${a.zone}` : text;
}

export interface Prefix {
  addr: Addr;
  bits: number;
}

/** netip.ParsePrefix. */
export function parsePrefix(s: string): Prefix {
  const fail = (msg: string) => new ParseError(`netip.ParsePrefix(${quote(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, slash));
  } catch (err) {
    throw fail((err as Error).message);
  }
  if (addr.zone) throw fail('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText)) throw fail(`bad bits after slash: ${quote(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > addr.bytes.length * 8) throw fail('prefix length out of range');
  return { addr, bits };
}

/** Prefix.Masked: the address with the bits after the prefix cleared. */
export function maskedAddr(addr: Addr, bits: number): Addr {
  return { zone: '', bytes: addr.bytes.map((b, i) => (bits >= 8 * (i + 1) ? b : bits <= 8 * i ? 0 : b & (0xff << (8 - (bits - 8 * i))) & 0xff)) };
}

/** Prefix.Contains: same family, same bits under the mask. */
export function prefixContains(p: Prefix, a: Addr): boolean {
  if (is4(p.addr) !== is4(a) || a.zone) return false;
  return addrString(maskedAddr(p.addr, p.bits)) === addrString(maskedAddr(a, p.bits));
}
