import { badRequest } from './errors';
import { isQualifiedName, isValidLabelValue } from './name-validation';

/** Label selectors in the string syntax of labels.Parse, and the LabelSelector struct of meta/v1. */

export type LabelOperator = 'Exists' | 'DoesNotExist' | 'Equals' | 'NotEquals' | 'In' | 'NotIn' | 'Gt' | 'Lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export type LabelSelector = LabelRequirement[];

function matchesRequirement(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Equals':
    case 'In':
      return has && r.values.includes(value);
    case 'NotEquals':
    case 'NotIn':
      return !has || !r.values.includes(value);
    case 'Gt':
    case 'Lt': {
      if (!has) return false;
      const n = Number(value);
      if (!/^-?[0-9]+$/.test(value)) return false;
      return r.operator === 'Gt' ? n > Number(r.values[0]) : n < Number(r.values[0]);
    }
  }
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return selector.every((r) => matchesRequirement(r, l));
}

const OPERATORS: [string, LabelOperator][] = [
  ['==', 'Equals'],
  ['!=', 'NotEquals'],
  ['=', 'Equals'],
  ['>', 'Gt'],
  ['<', 'Lt'],
];

function parseError(message: string): Error {
  return badRequest(`unable to parse requirement: ${message}`);
}

function validateRequirement(r: LabelRequirement): void {
  const keyErrs = isQualifiedName(r.key);
  if (keyErrs.length > 0) throw parseError(`<nil>: Invalid value: ${JSON.stringify(r.key)}: ${keyErrs.join('; ')}`);
  if (r.operator === 'Gt' || r.operator === 'Lt') {
    if (r.values.length !== 1 || !/^-?[0-9]+$/.test(r.values[0])) {
      throw parseError(`<nil>: Invalid value: ${JSON.stringify(r.values[0] ?? '')}: for 'Gt', 'Lt' operators, the value must be an integer`);
    }
    return;
  }
  for (const v of r.values) {
    const errs = isValidLabelValue(v);
    if (errs.length > 0) throw parseError(`values[0][${r.key}]: Invalid value: ${JSON.stringify(v)}: ${errs.join('; ')}`);
  }
}

/** Splits at commas that are not inside a parenthesised value set. */
function splitTopLevel(input: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of input) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function parseOne(raw: string): LabelRequirement {
  const term = raw.trim();
  if (term === '') throw parseError('found \'\', expected: !, identifier, or \'end of string\'');
  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (setMatch) {
    const values = setMatch[3].split(',').map((v) => v.trim());
    return { key: setMatch[1], operator: setMatch[2] === 'in' ? 'In' : 'NotIn', values };
  }
  if (term.startsWith('!')) {
    const key = term.slice(1).trim();
    if (!key || /[\s=!<>()]/.test(key)) throw parseError(`found '${term}', expected: identifier after '!'`);
    return { key, operator: 'DoesNotExist', values: [] };
  }
  for (const [symbol, operator] of OPERATORS) {
    const at = term.indexOf(symbol);
    if (at > 0) {
      const key = term.slice(0, at).trim();
      const value = term.slice(at + symbol.length).trim();
      if (/[\s=!<>()]/.test(key) || /[=!<>()\s]/.test(value)) throw parseError(`found '${term}', expected: identifier, or 'end of string'`);
      return { key, operator, values: [value] };
    }
  }
  if (/[\s=!<>()]/.test(term)) throw parseError(`found '${term}', expected: identifier, or 'end of string'`);
  return { key: term, operator: 'Exists', values: [] };
}

/** Parses `app=web,tier!=db,env in (a,b),!legacy`; an empty string selects everything. */
export function parseLabelSelector(input: string): LabelSelector {
  if (input.trim() === '') return [];
  const requirements = splitTopLevel(input).map(parseOne);
  for (const r of requirements) validateRequirement(r);
  return requirements;
}

/** metav1.LabelSelector (matchLabels, matchExpressions) as requirements. */
export function fromLabelSelectorStruct(sel: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] }): LabelSelector {
  const reqs: LabelSelector = Object.entries(sel.matchLabels ?? {}).map(([key, v]) => ({ key, operator: 'Equals' as const, values: [v] }));
  for (const e of sel.matchExpressions ?? []) {
    const operator = ({ In: 'In', NotIn: 'NotIn', Exists: 'Exists', DoesNotExist: 'DoesNotExist' } as Record<string, LabelOperator>)[e.operator];
    if (operator) reqs.push({ key: e.key, operator, values: e.values ?? [] });
  }
  return reqs;
}
