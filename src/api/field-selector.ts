import { badRequest } from './errors';

/** Field selectors (`a=b,c!=d`, with `\` escapes) as apimachinery's fields.ParseSelector reads them. */

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export type FieldSelector = FieldRequirement[];

/** splitTerms: commas split terms unless escaped; the backslash stays for UnescapeValue. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** "==" is tried before "=" so a value never keeps a leading "=". */
const TERM_OPERATORS = ['!=', '==', '='] as const;

/** splitTerm: the first operator anywhere in the term splits it; the field name has no escaping. */
function splitTerm(term: string): { lhs: string; op: (typeof TERM_OPERATORS)[number]; rhs: string } | null {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return null;
}

/** UnescapeValue: `\\`, `\,` and `\=` are the only escapes, and `,` or `=` may not appear bare. */
export function unescapeFieldValue(s: string): string {
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune with %v, which is its code point.
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

export function parseFieldSelector(input: string): FieldSelector {
  const requirements: FieldSelector = [];
  for (const part of splitTerms(input).sort()) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (!term) throw badRequest(`invalid selector: '${input}'; can't understand '${part}'`);
    const value = unescapeFieldValue(term.rhs);
    // parseSelector ends by Transform-ing its terms with the identity; hasTerm.Transform and notHasTerm.Transform
    // turn a term with neither field nor value ("=", "!=") into Everything, which andTerm.Transform drops.
    if (term.lhs === '' && value === '') continue;
    requirements.push({ field: term.lhs, operator: term.op === '!=' ? '!=' : '=', value });
  }
  return requirements;
}

export function matchesFields(selector: FieldSelector, fields: (name: string) => string): boolean {
  return selector.every((r) => (fields(r.field) === r.value) === (r.operator === '='));
}
