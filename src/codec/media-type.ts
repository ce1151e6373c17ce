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

/** A Content-Type as Go's mime.ParseMediaType reads it: type and parameter names lower-cased, quotes dropped. */
export function parseMediaType(raw: string): MediaType {
  const [head, ...rest] = raw.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (key) params[key] = value;
  }
  return { type: head.trim().toLowerCase(), params };
}

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
