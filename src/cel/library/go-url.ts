/**
 * URLs as Go's net/url parses them (url.ParseRequestURI, url.Parse), with its error texts
 * (`parse "<url>": <reason>`), and the parts Kubernetes' URL library returns: Hostname, Port,
 * EscapedPath and Query.
 */

export interface GoURL {
  scheme: string;
  opaque: string;
  /** The userinfo before `@`, as written; null without one (Go's nil *Userinfo). */
  user: string | null;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

const isAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

/** url.shouldEscape: whether a byte must be %-escaped in this part of a URL. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === 'host' || mode === 'zone') && '!$&\'()*+,;=:[]<>"'.includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    switch (mode) {
      case 'path':
        return c === '?';
      case 'userPassword':
        return c === '@' || c === '/' || c === '?' || c === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
      default:
        return false;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

class URLError extends Error {}

const goQuote = (s: string) => JSON.stringify(s);

/** url.unescape. */
function unescape(s: string, mode: Mode): string {
  const bytes: number[] = [];
  const utf8 = new TextEncoder().encode(s);
  for (let i = 0; i < utf8.length; i++) {
    const b = utf8[i];
    const c = String.fromCharCode(b);
    if (c === '%') {
      const hex = new TextDecoder().decode(utf8.slice(i + 1, i + 3));
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new URLError(`invalid URL escape ${goQuote(new TextDecoder().decode(utf8.slice(i, i + 3)))}`);
      const v = parseInt(hex, 16);
      if (mode === 'host' && v < 0x80 && hex !== '25') throw new URLError(`invalid URL escape ${goQuote(`%${hex}`)}`);
      bytes.push(v);
      i += 2;
    } else if (c === '+' && mode === 'queryComponent') {
      bytes.push(0x20);
    } else {
      if ((mode === 'host' || mode === 'zone') && b < 0x80 && shouldEscape(c, mode)) throw new URLError(`invalid character ${goQuote(c)} in host name`);
      bytes.push(b);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** url.escape. */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && !shouldEscape(c, mode) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** url.getScheme. */
function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new URLError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

const validOptionalPort = (port: string) => port === '' || /^:[0-9]*$/.test(port);

/** url.parseHost. */
function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new URLError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${goQuote(colonPort)} after host`);
    return unescape(host, 'host');
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0) {
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${goQuote(colonPort)} after host`);
  }
  return unescape(host, 'host');
}

/** url.parse: `viaRequest` is ParseRequestURI's stricter form (an absolute URI or an absolute path). */
function parse(raw: string, viaRequest: boolean): GoURL {
  const u: GoURL = { scheme: '', opaque: '', user: null, host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URLError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new URLError('empty url');
  if (raw === '*') {
    u.path = '*';
    return u;
  }
  let [scheme, rest] = getScheme(raw);
  u.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return u;
    }
    if (viaRequest) throw new URLError('invalid URI for request');
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) throw new URLError('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      u.user = authority.slice(0, at);
      u.host = parseHost(authority.slice(at + 1));
    } else {
      u.host = parseHost(authority);
    }
  }
  u.path = unescape(rest, 'path');
  u.rawPath = escape(u.path, 'path') === rest ? '' : rest;
  return u;
}

function wrap<T>(raw: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof URLError) throw new Error(`parse ${goQuote(raw)}: ${err.message}`);
    throw err;
  }
}

/** url.ParseRequestURI: the fragment, if any, stays in the path or query. */
export const parseRequestURI = (raw: string): GoURL => wrap(raw, () => parse(raw, true));

/** url.Parse: splits off the fragment first. */
export function parseURL(raw: string): GoURL {
  return wrap(raw, () => {
    const hash = raw.indexOf('#');
    const u = parse(hash < 0 ? raw : raw.slice(0, hash), false);
    if (hash >= 0) u.fragment = unescape(raw.slice(hash + 1), 'fragment');
    return u;
  });
}

/** URL.Hostname and URL.Port (url.splitHostPort). */
export function hostPort(u: GoURL): { hostname: string; port: string } {
  let hostname = u.host;
  let port = '';
  const colon = hostname.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(hostname.slice(colon))) {
    port = hostname.slice(colon + 1);
    hostname = hostname.slice(0, colon);
  }
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  return { hostname, port };
}

/** url.validEncoded. */
function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (shouldEscape(c, 'path')) return false;
  }
  return true;
}

/** URL.EscapedPath: the path as sent when that is a valid encoding of it, else the path escaped. */
export function escapedPath(u: GoURL): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath)) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // an invalid raw path falls back to escaping the path
    }
  }
  if (u.path === '*') return '*';
  return escape(u.path, 'path');
}

/** url.ParseQuery, keeping the pairs that parse (URL.Query ignores the error). */
export function query(u: GoURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of u.rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    try {
      const key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent');
      const value = unescape(eq < 0 ? '' : pair.slice(eq + 1), 'queryComponent');
      out.set(key, [...(out.get(key) ?? []), value]);
    } catch {
      // a pair with a bad escape is skipped
    }
  }
  return out;
}

/** URL.String, for equality of URL values (apiserver/pkg/cel.URL.Equal compares it). */
export function urlString(u: GoURL): string {
  let out = u.scheme ? `${u.scheme}:` : '';
  if (u.opaque) {
    out += u.opaque;
  } else {
    if (u.scheme || u.host || u.user !== null) {
      if (u.host || u.path || u.user !== null) out += '//';
      if (u.user !== null) out += `${u.user}@`;
      if (u.host) out += escape(u.host, 'host');
    }
    const path = escapedPath(u);
    if (path && !path.startsWith('/') && u.host) out += '/';
    out += path;
  }
  if (u.rawQuery) out += `?${u.rawQuery}`;
  if (u.fragment) out += `#${escape(u.fragment, 'fragment')}`;
  return out;
}
