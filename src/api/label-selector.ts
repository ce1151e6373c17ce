import { badRequest } from './errors';
import { runWalk, runWalkInSlices, type Walk } from './loop-slices';
import { aggregateMessage, field, fieldErrorMessage, goQuote, type FieldError } from './field-errors';
import { isQualifiedName, isValidLabelValue } from './name-validation';

/**
 * Label selectors in the string syntax of labels.Parse, and the LabelSelector struct of meta/v1.
 * The lexer and parser follow apimachinery's pkg/labels/selector.go, errors included.
 */

export type LabelOperator = 'Exists' | 'DoesNotExist' | 'Equals' | 'NotEquals' | 'In' | 'NotIn' | 'Gt' | 'Lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export type LabelSelector = LabelRequirement[];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64), or null when Go would fail. */
function parseInt64(s: string): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? null : n;
}

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
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(value);
      const bound = parseInt64(r.values[0]);
      if (actual === null || bound === null) return false;
      return r.operator === 'Gt' ? actual > bound : actual < bound;
    }
  }
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return selector.every((r) => matchesRequirement(r, l));
}

// ---- lexer ----

type Token =
  | 'Error'
  | 'EndOfString'
  | 'ClosedPar'
  | 'Comma'
  | 'DoesNotExist'
  | 'DoubleEquals'
  | 'Equals'
  | 'GreaterThan'
  | 'Identifier'
  | 'In'
  | 'LessThan'
  | 'NotEquals'
  | 'NotIn'
  | 'OpenPar';

const STRING_TO_TOKEN = new Map<string, Token>([
  [')', 'ClosedPar'],
  [',', 'Comma'],
  ['!', 'DoesNotExist'],
  ['==', 'DoubleEquals'],
  ['=', 'Equals'],
  ['>', 'GreaterThan'],
  ['in', 'In'],
  ['<', 'LessThan'],
  ['!=', 'NotEquals'],
  ['notin', 'NotIn'],
  ['(', 'OpenPar'],
]);

interface Scanned {
  tok: Token;
  lit: string;
}

const END = '\0';
const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => '=!(),><'.includes(ch) && ch !== '';

class Lexer {
  private pos = 0;

  constructor(private readonly s: string) {}

  private read(): string {
    return this.pos < this.s.length ? this.s[this.pos++] : END;
  }

  private unread(): void {
    this.pos--;
  }

  private scanIdOrKeyword(): Scanned {
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
    }
    const keyword = STRING_TO_TOKEN.get(buffer);
    return keyword ? { tok: keyword, lit: buffer } : { tok: 'Identifier', lit: buffer };
  }

  private scanSpecialSymbol(): Scanned {
    let last: Scanned | null = null;
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (!isSpecialSymbol(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
      const tok = STRING_TO_TOKEN.get(buffer);
      if (tok) {
        last = { tok, lit: buffer };
      } else if (last) {
        this.unread();
        break;
      }
    }
    return last ?? { tok: 'Error', lit: `error expected: keyword found '${buffer}'` };
  }

  lex(): Scanned {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === END) return { tok: 'EndOfString', lit: '' };
    this.unread();
    return isSpecialSymbol(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }
}

// ---- parser ----

type Context = 'KeyAndOperator' | 'Values';

class SelectorParseError extends Error {}

function fieldErr(e: FieldError): SelectorParseError {
  return new SelectorParseError(fieldErrorMessage(e));
}

/** Requirements parsed between two yields of a long selector's parse. */
const REQUIREMENTS_PER_YIELD = 1024;

class Parser {
  /** The next token, lexed when first looked at (Go's parser lexes the whole input first; the tokens are the same). */
  private next: Scanned | null = null;
  private readonly lexer: Lexer;

  constructor(input: string) {
    this.lexer = new Lexer(input);
  }

  private lookahead(ctx: Context): Scanned {
    const { tok, lit } = (this.next ??= this.lexer.lex());
    return { tok: ctx === 'Values' && (tok === 'In' || tok === 'NotIn') ? 'Identifier' : tok, lit };
  }

  private consume(ctx: Context): Scanned {
    const item = this.lookahead(ctx);
    if (item.tok !== 'EndOfString') this.next = null;
    return item;
  }

  *parse(): Walk<LabelRequirement[]> {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      if (requirements.length % REQUIREMENTS_PER_YIELD === REQUIREMENTS_PER_YIELD - 1) yield;
      const { tok, lit } = this.lookahead('Values');
      if (tok === 'EndOfString') return requirements;
      if (tok !== 'Identifier' && tok !== 'DoesNotExist') {
        throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.parseRequirement());
      } catch (err) {
        if (err instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const next = this.consume('Values');
      if (next.tok === 'EndOfString') return requirements;
      if (next.tok !== 'Comma') throw new SelectorParseError(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.lookahead('Values');
      if (after.tok !== 'Identifier' && after.tok !== 'DoesNotExist') {
        throw new SelectorParseError(`found '${after.lit}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'Exists' || operator === 'DoesNotExist') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'In' || op === 'NotIn' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | null } {
    let operator: LabelOperator | null = null;
    let { tok, lit } = this.consume('Values');
    if (tok === 'DoesNotExist') {
      operator = 'DoesNotExist';
      ({ tok, lit } = this.consume('Values'));
    }
    if (tok !== 'Identifier') throw new SelectorParseError(`found '${lit}', expected: identifier`);
    const keyErrs = isQualifiedName(lit);
    // The parser has no field path, which Go prints as "<nil>".
    if (keyErrs.length > 0) throw fieldErr(field.invalid('<nil>', lit, keyErrs.join('; ')));
    const next = this.lookahead('Values').tok;
    if ((next === 'EndOfString' || next === 'Comma') && operator !== 'DoesNotExist') operator = 'Exists';
    return { key: lit, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume('KeyAndOperator');
    switch (tok) {
      case 'In':
        return 'In';
      case 'Equals':
      case 'DoubleEquals':
        return 'Equals';
      case 'GreaterThan':
        return 'Gt';
      case 'LessThan':
        return 'Lt';
      case 'NotIn':
        return 'NotIn';
      case 'NotEquals':
        return 'NotEquals';
      default:
        // labels.Parser.parseOperator (apimachinery 1.36) lists its binaryOperators table joined by ", ".
        throw new SelectorParseError(`found '${lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume('Values');
    if (open.tok !== 'OpenPar') throw new SelectorParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead('Values');
    if (tok === 'Identifier' || tok === 'Comma') {
      const values = this.parseIdentifiersList();
      if (this.consume('Values').tok !== 'ClosedPar') throw new SelectorParseError(`found '${lit}', expected: ')'`);
      return values;
    }
    if (tok === 'ClosedPar') {
      this.consume('Values');
      return new Set(['']);
    }
    throw new SelectorParseError(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume('Values');
      if (tok === 'Identifier') {
        values.add(lit);
        const next = this.lookahead('Values');
        if (next.tok === 'Comma') continue;
        if (next.tok === 'ClosedPar') return values;
        throw new SelectorParseError(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok === 'Comma') {
        if (values.size === 0) values.add('');
        const next = this.lookahead('Values').tok;
        if (next === 'ClosedPar') {
          values.add('');
          return values;
        }
        if (next === 'Comma') {
          this.consume('Values');
          values.add('');
        }
        continue;
      }
      throw new SelectorParseError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead('Values').tok;
    if (ahead === 'EndOfString' || ahead === 'Comma') return new Set(['']);
    const { tok, lit } = this.consume('Values');
    if (tok === 'Identifier') return new Set([lit]);
    throw new SelectorParseError(`found '${lit}', expected: identifier`);
  }
}

/** labels.NewRequirement's checks on what the parser produced. */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: FieldError[] = [];
  if (operator === 'Gt' || operator === 'Lt') {
    if (values.length !== 1) errs.push(field.invalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
    values.forEach((v, i) => {
      if (parseInt64(v) === null) errs.push(field.invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(field.invalid(`values[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length > 0) throw new SelectorParseError(aggregateMessage(errs.map(fieldErrorMessage)));
  return { key, operator, values };
}

const byKey = (a: LabelRequirement, b: LabelRequirement): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Parses `app=web,tier!=db,env in (a,b),!legacy`; an empty string selects everything. Errors are 400s. */
export function parseLabelSelector(input: string): LabelSelector {
  try {
    return runWalk(new Parser(input).parse()).sort(byKey);
  } catch (err) {
    if (err instanceof SelectorParseError) throw badRequest(err.message);
    throw err;
  }
}

/** parseLabelSelector for a request: a selector of thousands of terms is read in slices, between other requests. */
export async function parseLabelSelectorInSlices(input: string, slice: () => Promise<void>): Promise<LabelSelector> {
  try {
    return (await runWalkInSlices(new Parser(input).parse(), slice)).sort(byKey);
  } catch (err) {
    if (err instanceof SelectorParseError) throw badRequest(err.message);
    throw err;
  }
}

const STRUCT_OPERATORS = new Map<string, LabelOperator>([
  ['In', 'In'],
  ['NotIn', 'NotIn'],
  ['Exists', 'Exists'],
  ['DoesNotExist', 'DoesNotExist'],
]);

/** metav1.LabelSelector: matchLabels and matchExpressions. */
export interface LabelSelectorStruct {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** metav1.LabelSelector (matchLabels, matchExpressions) as requirements. */
export function fromLabelSelectorStruct(sel: LabelSelectorStruct): LabelSelector {
  const reqs: LabelSelector = Object.entries(sel.matchLabels ?? {}).map(([key, v]) => ({ key, operator: 'Equals' as const, values: [v] }));
  for (const e of sel.matchExpressions ?? []) {
    const operator = STRUCT_OPERATORS.get(e.operator);
    if (operator) reqs.push({ key: e.key, operator, values: e.values ?? [] });
  }
  return reqs;
}

/** Requirement.String(): `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; values printed sorted. */
function requirementString(r: LabelRequirement): string {
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  switch (r.operator) {
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'Equals':
      return `${r.key}=${values}`;
    case 'NotEquals':
      return `${r.key}!=${values}`;
    case 'In':
      return `${r.key} in (${values})`;
    case 'NotIn':
      return `${r.key} notin (${values})`;
    case 'Gt':
      return `${r.key}>${values}`;
    case 'Lt':
      return `${r.key}<${values}`;
  }
}

/** labels.NewRequirement's checks for the requirements a LabelSelector struct produces. */
function structRequirementErrors(r: LabelRequirement): FieldError[] {
  const errs: FieldError[] = [];
  const keyErrs = isQualifiedName(r.key);
  if (keyErrs.length > 0) errs.push(field.invalid('key', r.key, keyErrs.join('; ')));
  if ((r.operator === 'In' || r.operator === 'NotIn') && r.values.length === 0) {
    errs.push(field.invalid('values', r.values, "for 'in', 'notin' operators, values set can't be empty"));
  }
  if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && r.values.length !== 0) {
    errs.push(field.invalid('values', r.values, 'values set must be empty for exists and does not exist'));
  }
  r.values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(field.invalid(`values[${i}][${r.key}]`, v, msgs.join('; ')));
  });
  return errs;
}

/**
 * metav1.LabelSelectorAsSelector(sel).String(), as a Scale's status.selector shows it: matchLabels
 * and then matchExpressions, sorted by key (stably), joined by commas; an absent or empty selector
 * is "". A selector kube-apiserver could not convert is a 400 with the first error's message.
 */
export function labelSelectorString(sel: LabelSelectorStruct | null | undefined): string {
  if (!sel) return '';
  const reqs: LabelSelector = [];
  const add = (r: LabelRequirement): void => {
    const errs = structRequirementErrors(r);
    if (errs.length > 0) throw badRequest(aggregateMessage(errs.map(fieldErrorMessage)));
    reqs.push(r);
  };
  for (const [key, v] of Object.entries(sel.matchLabels ?? {})) add({ key, operator: 'Equals', values: [v] });
  for (const e of sel.matchExpressions ?? []) {
    const operator = STRUCT_OPERATORS.get(e.operator);
    if (!operator) throw badRequest(`${goQuote(e.operator)} is not a valid label selector operator`);
    add({ key: e.key, operator, values: e.values ?? [] });
  }
  return reqs
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(requirementString)
    .join(',');
}
