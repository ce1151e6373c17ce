/** Media types with parameters, and Accept headers with q-values, as kube-apiserver reads them. */

export interface MediaType {
  /** "application/json", lower case, without parameters. */
  type: string;
  params: Record<string, string>;
}

export interface AcceptClause extends MediaType {
  q: number;
}

function splitParams(raw: string): MediaType {
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

export function parseMediaType(raw: string): MediaType {
  return splitParams(raw);
}

/** Clauses in preference order: higher q first, then concrete types before wildcards, then as written. */
export function parseAccept(header: string | undefined): AcceptClause[] {
  if (!header || header.trim() === '') return [{ type: '*/*', params: {}, q: 1 }];
  const clauses: (AcceptClause & { index: number })[] = [];
  header.split(',').forEach((part, index) => {
    if (part.trim() === '') return;
    const { type, params } = splitParams(part);
    let q = 1;
    if ('q' in params) {
      const parsed = Number(params.q);
      q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      delete params.q;
    }
    if (q > 0) clauses.push({ type, params, q, index });
  });
  const specificity = (c: AcceptClause): number => (c.type === '*/*' ? 0 : c.type.endsWith('/*') ? 1 : 2);
  clauses.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.index - b.index);
  return clauses.map(({ index: _i, ...c }) => c);
}

export function mediaTypeMatches(pattern: string, type: string): boolean {
  if (pattern === '*/*' || pattern === type) return true;
  return pattern.endsWith('/*') && type.startsWith(pattern.slice(0, -1));
}
