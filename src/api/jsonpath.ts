/**
 * Kubernetes' JSONPath templates (k8s.io/client-go/util/jsonpath) over plain JSON values: the parser
 * with its quirks and error messages, and FindResults. Values are classified as Go's unstructured
 * decoding would hold them: integral numbers inside int64 are int64, the rest float64.
 */

import { goJsonMarshal } from './go-json';

export interface SliceParam {
  value: number;
  known: boolean;
  /** The end of a plain index `[n]`, which is `n + 1`. */
  derived: boolean;
}

export interface ListNode {
  kind: 'list';
  nodes: JsonPathNode[];
}

export type JsonPathNode =
  | ListNode
  | { kind: 'text'; text: string }
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'array'; params: [SliceParam, SliceParam, SliceParam] }
  | { kind: 'union'; lists: ListNode[] }
  | { kind: 'filter'; left: ListNode; right: ListNode; operator: string }
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'identifier'; name: string };

/** A parsed template: text and `{...}` actions, in order. */
export interface JsonPathTemplate {
  root: ListNode;
}

/** A template that does not parse; the message is client-go's. */
export class JsonPathParseError extends Error {}

/** A failed evaluation; the message is client-go's. */
export class JsonPathEvalError extends Error {
  /** What the failing step handed on with its error: the exists filter still looks at it, as client-go does. */
  readonly partial: unknown[];
  constructor(message: string, partial: unknown[]) {
    super(message);
    this.partial = partial;
  }
}

/** A float literal of a filter: Go compares it only with float64 values, never with int64 ones. */
class FloatLiteral {
  constructor(readonly value: number) {}
}

const EOF = -1;
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Parses a template such as `{.status.phase}`; throws JsonPathParseError. */
export function parseJsonPath(template: string): JsonPathTemplate {
  const parser = new Parser(template);
  parser.parseText();
  return { root: parser.root };
}

/** parseAction: the text of one action, parsed as `{text}`. */
function parseAction(text: string): ListNode {
  return parseJsonPath(`{${text}}`).root.nodes[0] as ListNode;
}

function list(): ListNode {
  return { kind: 'list', nodes: [] };
}

function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09;
}

function isEndOfLine(r: number): boolean {
  return r === 0x0d || r === 0x0a;
}

function isTerminator(r: number): boolean {
  return isSpace(r) || isEndOfLine(r) || r === EOF || '.,[]$@{}'.includes(String.fromCodePoint(r));
}

function isDigit(r: number): boolean {
  return r !== EOF && /\p{Nd}/u.test(String.fromCodePoint(r));
}

function isAlphaNumeric(r: number): boolean {
  return r !== EOF && (r === 0x5f || /[\p{L}\p{Nd}]/u.test(String.fromCodePoint(r)));
}

/** Go's %#U. */
function goRune(r: number): string {
  const code = `U+${r.toString(16).toUpperCase().padStart(4, '0')}`;
  return /\P{C}/u.test(String.fromCodePoint(r)) ? `${code} '${String.fromCodePoint(r)}'` : code;
}

/** strconv.Atoi on a 64-bit platform. */
function atoi(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n < INT64_MIN || n > INT64_MAX ? undefined : Number(n);
}

class Parser {
  readonly root = list();
  private pos = 0;
  private start = 0;
  private width = 0;

  constructor(private readonly input: string) {}

  private fail(message: string): never {
    throw new JsonPathParseError(message);
  }

  private consumeText(): string {
    const value = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return value;
  }

  private next(): number {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = this.input.codePointAt(this.pos)!;
    this.width = r > 0xffff ? 2 : 1;
    this.pos += this.width;
    return r;
  }

  private peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  /** The character just before the one next() returned: client-go's test for an escaped quote. */
  private escaped(): boolean {
    return this.input[this.pos - 2] === '\\';
  }

  parseText(): void {
    for (;;) {
      if (this.input.startsWith('{', this.pos)) {
        if (this.pos > this.start) this.root.nodes.push({ kind: 'text', text: this.consumeText() });
        return this.parseLeftDelim();
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) this.root.nodes.push({ kind: 'text', text: this.consumeText() });
  }

  private parseLeftDelim(): void {
    this.pos += 1;
    this.consumeText();
    const action = list();
    this.root.nodes.push(action);
    this.parseInsideAction(action);
  }

  private parseInsideAction(cur: ListNode): void {
    for (;;) {
      if (this.input.startsWith('}', this.pos)) {
        this.pos += 1;
        this.consumeText();
        return this.parseText();
      }
      if (this.input.startsWith('[?(', this.pos)) {
        this.parseFilter(cur);
        continue;
      }
      if (this.input.startsWith('..', this.pos)) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || isEndOfLine(r)) this.fail('unclosed action');
      if (r === 0x20 || r === 0x40 /* @ */ || r === 0x24 /* $ */) {
        this.consumeText();
      } else if (r === 0x5b /* [ */) {
        this.parseArray(cur);
      } else if (r === 0x22 || r === 0x27) {
        this.parseQuote(cur, r);
      } else if (r === 0x2e /* . */) {
        this.parseField(cur);
      } else if (r === 0x2b || r === 0x2d || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else {
        this.fail(`unrecognized character in action: ${goRune(r)}`);
      }
    }
  }

  private parseIdentifier(cur: ListNode): void {
    while (!isTerminator(this.next()));
    this.backup();
    const value = this.consumeText();
    if (value === 'true' || value === 'false') cur.nodes.push({ kind: 'bool', value: value === 'true' });
    else cur.nodes.push({ kind: 'identifier', name: value });
  }

  private parseRecursive(cur: ListNode): void {
    if (cur.nodes.at(-1)?.kind === 'recursive') this.fail('invalid multiple recursive descent');
    this.pos += 2;
    this.consumeText();
    cur.nodes.push({ kind: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: ListNode): void {
    const first = this.peek();
    if (first === 0x2b || first === 0x2d) this.next();
    for (;;) {
      const r = this.next();
      if (r !== 0x2e && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    const int = atoi(value);
    if (int !== undefined) cur.nodes.push({ kind: 'int', value: int });
    else if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(value)) cur.nodes.push({ kind: 'float', value: Number(value) });
    else this.fail(`cannot parse number ${value}`);
  }

  private parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) this.fail('unterminated array');
      if (r === 0x5d /* ] */) break;
    }
    let text = this.consumeText().slice(1, -1);
    if (text === '*') text = ':';

    const parts = text.split(',');
    if (parts.length > 1) {
      cur.nodes.push({ kind: 'union', lists: parts.map((part) => parseAction(`[${part.replace(/^ +| +$/g, '')}]`)) });
      return;
    }

    // A quoted key is read as `.key`, so its dots still separate fields, as in client-go.
    const key = DICT_KEY.exec(text);
    if (key) {
      cur.nodes.push(...parseAction(`.${key[1]}`).nodes);
      return;
    }

    const slice = SLICE.exec(text);
    if (!slice) this.fail(`invalid array index ${text}`);
    const params: SliceParam[] = [];
    for (let i = 0; i < 3; i++) {
      const raw = slice[i + 1] ?? '';
      if (raw === '') {
        params.push(i === 1 ? { value: params[0].value + 1, known: true, derived: true } : { value: 0, known: false, derived: false });
        continue;
      }
      const digits = i > 0 ? raw.slice(1) : raw;
      if (i > 0 && digits === '') {
        params.push({ value: 0, known: false, derived: false });
        continue;
      }
      const value = atoi(digits);
      if (value === undefined) this.fail(`array index ${digits} is not a number`);
      params.push({ value, known: true, derived: false });
    }
    cur.nodes.push({ kind: 'array', params: params as [SliceParam, SliceParam, SliceParam] });
  }

  private parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = 0;
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) this.fail('unterminated filter');
      if (r === 0x22 || r === 0x27) {
        if (!begin) {
          begin = true;
          pair = r;
        } else if (!this.escaped() && r === pair) {
          end = true;
        }
      } else if (r === 0x29 /* ) */ && begin === end) {
        break;
      }
    }
    if (this.next() !== 0x5d) this.fail('unclosed array expect ]');
    const text = this.consumeText().slice(0, -2);
    const comparison = FILTER.exec(text);
    if (!comparison) {
      cur.nodes.push({ kind: 'filter', left: parseAction(text), right: list(), operator: 'exists' });
    } else {
      cur.nodes.push({ kind: 'filter', left: parseAction(comparison[1]), right: parseAction(comparison[3]), operator: comparison[2] });
    }
  }

  private parseQuote(cur: ListNode, quote: number): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) this.fail('unterminated quoted string');
      if (r === quote && !this.escaped()) break;
    }
    const value = this.consumeText();
    const text = unquote(value);
    if (text === undefined) this.fail(`unquote string ${value} error invalid syntax`);
    cur.nodes.push({ kind: 'text', text });
  }

  private parseField(cur: ListNode): void {
    this.consumeText();
    for (;;) {
      const r = this.next();
      if (r === 0x5c /* \ */) {
        this.next();
      } else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === '*') cur.nodes.push({ kind: 'wildcard' });
    else cur.nodes.push({ kind: 'field', name: value.replaceAll('\\', '') });
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** UnquoteExtend: strconv.Unquote for double- or single-quoted text; undefined for invalid syntax. */
function unquote(quoted: string): string | undefined {
  const quote = quoted[0];
  if (quoted.length < 2 || quote !== quoted.at(-1) || (quote !== '"' && quote !== "'")) return undefined;
  const body = quoted.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length;) {
    const c = body[i];
    if (c === quote) return undefined;
    if (c !== '\\') {
      out += c;
      i += 1;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return undefined;
    if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
      i += 2;
    } else if (e === quote) {
      out += e;
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const size = { x: 2, u: 4, U: 8 }[e];
      const hex = body.slice(i + 2, i + 2 + size);
      if (!new RegExp(`^[0-9a-fA-F]{${size}}$`).test(hex)) return undefined;
      const code = parseInt(hex, 16);
      if (e !== 'x' && (code > 0x10ffff || (code >= 0xd800 && code < 0xe000))) return undefined;
      out += String.fromCodePoint(code);
      i += 2 + size;
    } else if (/[0-7]/.test(e)) {
      const octal = body.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(octal) || parseInt(octal, 8) > 255) return undefined;
      out += String.fromCodePoint(parseInt(octal, 8));
      i += 4;
    } else {
      return undefined;
    }
  }
  return out;
}

export interface EvaluateOptions {
  /** A missing field yields no result instead of an error. */
  allowMissingKeys: boolean;
}

type GoKind = 'nil' | 'bool' | 'int' | 'float' | 'string' | 'slice' | 'map';

function goKind(value: unknown): GoKind {
  if (value === null || value === undefined) return 'nil';
  if (value instanceof FloatLiteral) return 'float';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? 'int' : 'float';
    default:
      return Array.isArray(value) ? 'slice' : 'map';
  }
}

/** The Go type client-go names in its errors. */
function goTypeName(value: unknown): string {
  const names: Record<GoKind, string> = {
    nil: '<nil>',
    bool: 'bool',
    int: 'int64',
    float: 'float64',
    string: 'string',
    slice: '[]interface {}',
    map: 'map[string]interface {}',
  };
  return names[goKind(value)];
}

function numberOf(value: unknown): number {
  return value instanceof FloatLiteral ? value.value : (value as number);
}

/** What `*` and `..` visit: map values, array items, a string's bytes. */
function children(value: unknown): unknown[] {
  switch (goKind(value)) {
    case 'map':
      return Object.values(value as Record<string, unknown>);
    case 'slice':
      return value as unknown[];
    case 'string':
      return [...Buffer.from(value as string, 'utf8')];
    default:
      return [];
  }
}

/**
 * FindResults: one list of values per top-level node of the template (text, action). Throws
 * JsonPathEvalError. Maps are visited in their key order (Go's order is random).
 */
export function findResults(template: JsonPathTemplate, data: unknown, options: EvaluateOptions): unknown[][] {
  const evaluator = new Evaluator(options.allowMissingKeys);
  return template.root.nodes.map((node) => evaluator.walk([data], node).map((v) => (v instanceof FloatLiteral ? v.value : v)));
}

class Evaluator {
  constructor(private readonly allowMissingKeys: boolean) {}

  walk(input: unknown[], node: JsonPathNode): unknown[] {
    switch (node.kind) {
      case 'list':
        return this.evalList(input, node);
      case 'text':
        return [node.text];
      case 'field':
        return this.evalField(input, node.name);
      case 'array':
        return this.evalArray(input, node.params);
      case 'filter':
        return this.evalFilter(input, node);
      case 'int':
      case 'bool':
        return input.map(() => node.value);
      case 'float':
        return input.map(() => new FloatLiteral(node.value));
      case 'wildcard':
        return input.flatMap(children);
      case 'recursive':
        return this.evalRecursive(input);
      case 'union':
        return this.evalUnion(input, node.lists);
      case 'identifier':
        // range/end only steer kubectl's output loops; a printer column has no use for them.
        throw new JsonPathEvalError(
          node.name === 'range' || node.name === 'end' ? `${node.name} is not supported` : `unrecognized identifier ${node.name}`,
          input,
        );
    }
  }

  private evalList(input: unknown[], node: ListNode): unknown[] {
    let current = input;
    for (const child of node.nodes) current = this.walk(current, child);
    return current;
  }

  private evalField(input: unknown[], name: string): unknown[] {
    const results: unknown[] = [];
    for (const value of input) {
      if (goKind(value) === 'map' && Object.hasOwn(value as object, name)) results.push((value as Record<string, unknown>)[name]);
    }
    if (results.length === 0 && input.length > 0 && !this.allowMissingKeys) throw new JsonPathEvalError(`${name} is not found`, results);
    return results;
  }

  private evalArray(input: unknown[], node: [SliceParam, SliceParam, SliceParam]): unknown[] {
    const results: unknown[] = [];
    for (const value of input) {
      if (goKind(value) === 'nil') continue;
      if (!Array.isArray(value)) throw new JsonPathEvalError(`${goTypeName(value)} is not array or slice`, input);
      const length = value.length;
      const [p0, p1, p2] = node.map((p) => ({ ...p }));
      if (!p0.known) p0.value = 0;
      if (p0.value < 0) p0.value += length;
      if (!p1.known) p1.value = length;
      if (p1.value < 0 || (p1.value === 0 && p1.derived)) p1.value += length;
      if (p1.value === p0.value) return results;
      if (p0.value >= length || p0.value < 0) throw new JsonPathEvalError(`array index out of bounds: index ${p0.value}, length ${length}`, input);
      if (p1.value > length || p1.value < 0) throw new JsonPathEvalError(`array index out of bounds: index ${p1.value - 1}, length ${length}`, input);
      if (p0.value > p1.value) throw new JsonPathEvalError(`starting index ${p0.value} is greater than ending index ${p1.value}`, input);
      let step = 1;
      if (p2.known) {
        if (p2.value <= 0) throw new JsonPathEvalError('step must be > 0', input);
        step = p2.value;
      }
      const slice = value.slice(p0.value, p1.value);
      for (let i = 0; i < slice.length; i += step) results.push(slice[i]);
    }
    return results;
  }

  private evalUnion(input: unknown[], lists: ListNode[]): unknown[] {
    const results: unknown[] = [];
    for (const l of lists) {
      try {
        results.push(...this.evalList(input, l));
      } catch (e) {
        throw e instanceof JsonPathEvalError ? new JsonPathEvalError(e.message, input) : e;
      }
    }
    return results;
  }

  private evalRecursive(input: unknown[]): unknown[] {
    const results: unknown[] = [];
    for (const value of input) {
      const inner = children(value);
      if (inner.length === 0) continue;
      results.push(value);
      results.push(...this.evalRecursive(inner));
    }
    return results;
  }

  private evalFilter(input: unknown[], node: Extract<JsonPathNode, { kind: 'filter' }>): unknown[] {
    const results: unknown[] = [];
    for (const value of input) {
      if (!Array.isArray(value)) throw new JsonPathEvalError(`${goValueText(value)} is not array or slice and cannot be filtered`, input);
      for (const item of value) {
        if (node.operator === 'exists') {
          let lefts: unknown[];
          try {
            lefts = this.evalList([item], node.left);
          } catch (e) {
            if (!(e instanceof JsonPathEvalError)) throw e;
            lefts = e.partial;
          }
          if (lefts.length > 0) results.push(item);
          continue;
        }
        const left = this.operand(input, item, node.left);
        if (left === undefined) continue;
        const right = this.operand(input, item, node.right);
        if (right === undefined) continue;
        if (compare(node.operator, left.value, right.value, results)) results.push(item);
      }
    }
    return results;
  }

  /** The single value a side of a comparison yields, undefined when none. */
  private operand(input: unknown[], item: unknown, side: ListNode): { value: unknown } | undefined {
    let values: unknown[];
    try {
      values = this.evalList([item], side);
    } catch (e) {
      throw e instanceof JsonPathEvalError ? new JsonPathEvalError(e.message, input) : e;
    }
    if (values.length === 0) return undefined;
    if (values.length > 1) throw new JsonPathEvalError('can only compare one element at a time', input);
    return { value: values[0] };
  }
}

/** How %v prints a value client-go cannot filter: enough for its error message. */
function goValueText(value: unknown): string {
  return goKind(value) === 'nil' ? '<nil>' : printResult(value);
}

/** text/template's comparison functions, as client-go's filters use them. */
function compare(operator: string, left: unknown, right: unknown, partial: unknown[]): boolean {
  const fail = (message: string): never => {
    throw new JsonPathEvalError(message, partial);
  };
  const comparable = (v: unknown): GoKind => {
    const kind = goKind(v);
    if (kind === 'nil' || kind === 'slice' || kind === 'map') fail('invalid type for comparison');
    return kind;
  };
  const k1 = comparable(left);
  const k2 = comparable(right);
  const equal = (): boolean => {
    if (k1 !== k2) fail('incompatible types for comparison');
    return k1 === 'int' || k1 === 'float' ? numberOf(left) === numberOf(right) : left === right;
  };
  const less = (): boolean => {
    if (k1 !== k2) fail('incompatible types for comparison');
    if (k1 === 'bool') fail('invalid type for comparison');
    return k1 === 'string' ? (left as string) < (right as string) : numberOf(left) < numberOf(right);
  };
  switch (operator) {
    case '==':
      return equal();
    case '!=':
      return !equal();
    case '<':
      return less();
    case '<=':
      return less() || equal();
    case '>':
      return !(less() || equal());
    case '>=':
      return !less();
    default:
      return fail(`unrecognized filter operator ${operator}`);
  }
}

/** fmt's %v of a float64 (strconv's shortest %g): exponent form below 1e-4 and from 1e6 on. */
export function goFloatText(n: number): string {
  const [mantissa, exponent] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/** PrintResults of one value: maps and arrays as JSON, anything else as fmt prints it. */
export function printResult(value: unknown): string {
  switch (goKind(value)) {
    case 'nil':
      return '<no value>';
    case 'map':
    case 'slice':
      return goJsonMarshal(value);
    case 'float':
      return goFloatText(numberOf(value));
    default:
      return String(value);
  }
}
