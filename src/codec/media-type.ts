import { setOwn } from '../api/types';
import { deepFreeze } from '../api/deep-freeze';
import { firstSeenMemo } from '../api/first-seen-memo';
/** Media types with parameters, and Accept headers with q-values, as kube-apiserver reads them. */

export interface MediaType {
  /** "application/json", lower case, without parameters. */
  type: string;
  params: Record<string, string>;
}

/** One clause of an Accept header. */
export interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
  params: Record<string, string>;
}

/** RFC 2045's tspecials: what a token may not hold. */
const TSPECIALS = new Set('()<>@,;:\\"/[]?=');

const isTokenChar = (c: string): boolean => c > ' ' && c < '\x7f' && !TSPECIALS.has(c);

/** unicode.IsSpace within Latin-1, which is all a header value holds. */
const isGoSpace = (c: string): boolean => c === ' ' || (c >= '\t' && c <= '\r') || c === '\x85' || c === '\xa0';

function trimLeftSpace(s: string): string {
  let i = 0;
  while (i < s.length && isGoSpace(s[i])) i++;
  return s.slice(i);
}

function trimSpace(s: string): string {
  let end = s.length;
  while (end > 0 && isGoSpace(s[end - 1])) end--;
  return trimLeftSpace(s.slice(0, end));
}

/** The token at the start of `s`, and what follows it. */
function token(s: string): [string, string] {
  let i = 0;
  while (i < s.length && isTokenChar(s[i])) i++;
  return [s.slice(0, i), s.slice(i)];
}

/** A token or a quoted string (a backslash escapes only a tspecial); null for an unterminated or broken quote. */
function paramValue(s: string): [string, string] | null {
  if (s[0] !== '"') return token(s);
  let out = '';
  for (let i = 1; i < s.length; i++) {
    const c = s[i];
    if (c === '"') return [out, s.slice(i + 1)];
    if (c === '\\' && i + 1 < s.length && TSPECIALS.has(s[i + 1])) out += s[++i];
    else if (c === '\r' || c === '\n') return null;
    else out += c;
  }
  return null;
}

/** `; key=value` at the start of `s`: the key lower-cased, the value, and what follows; null where there is none. */
function param(s: string): [string, string, string] | null {
  let rest = trimLeftSpace(s);
  if (rest[0] !== ';') return null;
  const [rawKey, afterKey] = token(trimLeftSpace(rest.slice(1)));
  if (!rawKey) return null;
  rest = trimLeftSpace(afterKey);
  if (rest[0] !== '=') return null;
  rest = trimLeftSpace(rest.slice(1));
  const value = paramValue(rest);
  if (!value || (value[0] === '' && value[1] === rest)) return null;
  return [rawKey.toLowerCase(), value[0], value[1]];
}

/**
 * A Content-Type as Go's mime.ParseMediaType reads it: type and parameter names lower-cased,
 * quoted values unquoted; null where it fails (no type/subtype tokens, a parameter that is not
 * token=value, a repeated name with another value), which kube-apiserver answers with 415.
 * A trailing ';' is allowed.
 */
function parseMediaTypeOnce(raw: string): MediaType | null {
  const semi = raw.indexOf(';');
  const type = trimSpace((semi < 0 ? raw : raw.slice(0, semi)).toLowerCase());
  const [major, afterMajor] = token(type);
  if (!major || (afterMajor !== '' && (afterMajor[0] !== '/' || token(afterMajor.slice(1))[0] === '' || token(afterMajor.slice(1))[1] !== ''))) return null;
  const params: Record<string, string> = {};
  let rest = semi < 0 ? '' : raw.slice(semi);
  while (rest.length > 0) {
    rest = trimLeftSpace(rest);
    if (!rest) break;
    const next = param(rest);
    if (!next) {
      if (trimSpace(rest) === ';') break;
      return null;
    }
    const [key, value, after] = next;
    if (Object.hasOwn(params, key) && params[key] !== value) return null;
    setOwn(params, key, value);
    rest = after;
  }
  return { type, params };
}

/**
 * parseMediaType's answer for a header value; the same frozen answer for the same value (clients
 * send the same few Content-Types all day: each one's parse is kept, as negotiateOutput keeps its choices).
 */
export const parseMediaType: (raw: string) => Readonly<MediaType> | null = firstSeenMemo(64, (raw) => {
  const parsed = parseMediaTypeOnce(raw);
  return parsed && deepFreeze(parsed);
});

/** goautoneg's order: a higher q first; a concrete type, then a concrete subtype, before a wildcard. */
function less(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  return a.subtype !== '*' && b.subtype === '*';
}

/** strings.Trim(s, " "): only spaces, not tabs. */
const SPACES = /^ +| +$/g;

/** The longest slice Go's sort.Sort orders by insertion. */
const GO_INSERTION_SORT_MAX = 12;

/**
 * Accept clauses in preference order, exactly as kube-apiserver's parser (goautoneg) reads them:
 * case kept, spaces trimmed, clauses that are not type/subtype dropped, q=0 kept (it only sorts
 * last), and sorted by its comparison (see below for where the order of ties differs).
 */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.replace(SPACES, '');
    const [range, ...rawParams] = part.split(';');
    const slash = range.split('/');
    const type = slash[0].replace(SPACES, '');
    let subtype: string;
    if (slash.length === 1) {
      if (type !== '*') continue;
      subtype = '*';
    } else if (slash.length === 2) {
      subtype = slash[1].replace(SPACES, '');
    } else continue;
    const clause: AcceptClause = { type, subtype, q: 1, params: {} };
    for (const p of rawParams) {
      const kv = p.split('=');
      if (kv.length !== 2) continue;
      const key = kv[0].replace(SPACES, '');
      if (key === 'q') {
        const q = Number(kv[1]);
        clause.q = Number.isNaN(q) ? 0 : Math.fround(q);
      } else clause.params[key] = kv[1].replace(SPACES, '');
    }
    clauses.push(clause);
  }
  // Go's sort.Sort is an insertion sort up to 12 elements (pdqsort's maxInsertion). Past that its
  // order of clauses that tie is pdqsort's own; a merge sort's keeps them in place, without the
  // insertion sort's n² (90,000 clauses in one header held the event loop 84 s).
  if (clauses.length > GO_INSERTION_SORT_MAX) return clauses.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && less(clauses[j], clauses[j - 1]); j--) {
      [clauses[j], clauses[j - 1]] = [clauses[j - 1], clauses[j]];
    }
  }
  return clauses;
}

/** The clause matches a served media type: exactly, by subtype wildcard, or by `* / *`. */
export function clauseMatches(clause: AcceptClause, mediaType: string): boolean {
  const [type, subtype] = mediaType.split('/');
  return (clause.type === type && (clause.subtype === subtype || clause.subtype === '*')) || (clause.type === '*' && clause.subtype === '*');
}
