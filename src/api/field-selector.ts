import { badRequest } from './errors';

/** Field selectors (`a=b,c!=d`, with `\` escapes) as fields.ParseSelector reads them. */

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export type FieldSelector = FieldRequirement[];

/** Splits on an unescaped separator. */
function splitUnescaped(input: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch === '\\' && i + 1 < input.length) {
      current += ch + input[i + 1];
      i++;
    } else if (ch === separator) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\') {
      const next = value[i + 1];
      if (next !== '\\' && next !== ',' && next !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${next ?? ''}`);
      out += next;
      i++;
    } else {
      out += value[i];
    }
  }
  return out;
}

export function parseFieldSelector(input: string): FieldSelector {
  if (input.trim() === '') return [];
  return splitUnescaped(input, ',').map((term) => {
    for (const op of ['!=', '==', '='] as const) {
      const at = findUnescaped(term, op);
      if (at >= 0) {
        return { field: term.slice(0, at).trim(), operator: op === '!=' ? '!=' : '=', value: unescape(term.slice(at + op.length)) };
      }
    }
    throw badRequest(`invalid selector: '${input}'; can't understand '${term}'`);
  });
}

function findUnescaped(term: string, op: string): number {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    if (term.startsWith(op, i)) return i;
  }
  return -1;
}

export function matchesFields(selector: FieldSelector, fields: (name: string) => string): boolean {
  return selector.every((r) => (fields(r.field) === r.value) === (r.operator === '='));
}
