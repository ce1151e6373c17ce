import { goQuote } from '../api/field-errors';
import type { Walk } from '../api/loop-slices';
import { CHARS_PER_YIELD } from './scan-slice';

/**
 * The SyntaxError text Go's encoding/json gives for a JSON document (its checkValid runs before
 * any decoding, so a syntax error is what json.Unmarshal reports first), or null for a valid one.
 * A scanner of its own with the same states and messages as encoding/json's scanner.go: kube's
 * decoders quote these texts in their Status messages. It runs only once JSON.parse has failed.
 */
export function* goJsonSyntaxErrorWalk(bytes: Uint8Array): Walk<string | null> {
  const stack: Container[] = [];
  let state: State = beginValue;
  let nextYield = CHARS_PER_YIELD;
  for (let i = 0; i < bytes.length; i++) {
    if (i >= nextYield) {
      nextYield = i + CHARS_PER_YIELD;
      yield;
    }
    const next = state(bytes[i], stack);
    if (typeof next === 'string') return next;
    state = next;
  }
  // scanner.eof: a space ends a top-level number or literal; anything still open is cut short.
  const last = state(SPACE, stack);
  if (typeof last === 'string') return last;
  return last === endTop ? null : 'unexpected end of JSON input';
}

/** A scanner state: the state after byte `c`, or the error it makes. */
type State = (c: number, stack: Container[]) => State | string;
/** What an open object or array expects next (scanner.go's parseObjectKey, parseObjectValue, parseArrayValue). */
type Container = 'key' | 'value' | 'element';

const SPACE = 0x20;
const isSpace = (c: number): boolean => c === SPACE || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** encoding/json's quoteChar: the byte as a rune, between single quotes. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`;
}

const fail = (c: number, context: string): string => `invalid character ${quoteChar(c)} ${context}`;

/** The deepest nesting encoding/json's scanner takes (maxNestingDepth). */
const MAX_DEPTH = 10000;

function open(c: number, stack: Container[], container: Container, next: State): State | string {
  stack.push(container);
  return stack.length <= MAX_DEPTH ? next : fail(c, 'exceeded max depth');
}

const beginValue: State = (c, stack) => {
  if (isSpace(c)) return beginValue;
  switch (c) {
    case 0x7b:
      return open(c, stack, 'key', beginKeyOrEmpty);
    case 0x5b:
      return open(c, stack, 'element', beginValueOrEmpty);
    case 0x22:
      return inString;
    case 0x2d:
      return negative;
    case 0x30:
      return zero;
    case 0x74:
      return literal('true', 1);
    case 0x66:
      return literal('false', 1);
    case 0x6e:
      return literal('null', 1);
  }
  if (c > 0x30 && c <= 0x39) return integer;
  return fail(c, 'looking for beginning of value');
};

const beginValueOrEmpty: State = (c, stack) => {
  if (isSpace(c)) return beginValueOrEmpty;
  return c === 0x5d ? endValue(c, stack) : beginValue(c, stack);
};

const beginKeyOrEmpty: State = (c, stack) => {
  if (isSpace(c)) return beginKeyOrEmpty;
  if (c === 0x7d) {
    stack[stack.length - 1] = 'value';
    return endValue(c, stack);
  }
  return beginKey(c, stack);
};

const beginKey: State = (c) => {
  if (isSpace(c)) return beginKey;
  return c === 0x22 ? inString : fail(c, 'looking for beginning of object key string');
};

/** After a value: what its container (or the top level) allows next. */
const endValue: State = (c, stack) => {
  if (stack.length === 0) return endTop(c, stack);
  if (isSpace(c)) return endValue;
  const top = stack.length - 1;
  switch (stack[top]) {
    case 'key':
      if (c !== 0x3a) return fail(c, 'after object key');
      stack[top] = 'value';
      return beginValue;
    case 'value':
      if (c === 0x2c) {
        stack[top] = 'key';
        return beginKey;
      }
      if (c !== 0x7d) return fail(c, 'after object key:value pair');
      stack.pop();
      return endValue;
    case 'element':
      if (c === 0x2c) return beginValue;
      if (c !== 0x5d) return fail(c, 'after array element');
      stack.pop();
      return endValue;
  }
};

const endTop: State = (c) => (isSpace(c) ? endTop : fail(c, 'after top-level value'));

const inString: State = (c) => {
  if (c === 0x22) return endValue;
  if (c === 0x5c) return inEscape;
  return c < 0x20 ? fail(c, 'in string literal') : inString;
};

const ESCAPED = new Set([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22]);
const inEscape: State = (c) => {
  if (ESCAPED.has(c)) return inString;
  return c === 0x75 ? unicodeEscape(4) : fail(c, 'in string escape code');
};

const unicodeEscapes: State[] = [];
function unicodeEscape(left: number): State {
  return (unicodeEscapes[left] ??= (c) => {
    if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
    return left === 1 ? inString : unicodeEscape(left - 1);
  });
}

const negative: State = (c) => {
  if (c === 0x30) return zero;
  return c > 0x30 && c <= 0x39 ? integer : fail(c, 'in numeric literal');
};
const integer: State = (c, stack) => (isDigit(c) ? integer : zero(c, stack));
const zero: State = (c, stack) => {
  if (c === 0x2e) return dot;
  if (c === 0x65 || c === 0x45) return exponent;
  return endValue(c, stack);
};
const dot: State = (c) => (isDigit(c) ? fraction : fail(c, 'after decimal point in numeric literal'));
const fraction: State = (c, stack) => {
  if (isDigit(c)) return fraction;
  if (c === 0x65 || c === 0x45) return exponent;
  return endValue(c, stack);
};
const exponent: State = (c, stack) => (c === 0x2b || c === 0x2d ? exponentSign : exponentSign(c, stack));
const exponentSign: State = (c) => (isDigit(c) ? exponentDigits : fail(c, 'in exponent of numeric literal'));
const exponentDigits: State = (c, stack) => (isDigit(c) ? exponentDigits : endValue(c, stack));

const literals = new Map<string, State>();
/** The rest of `true`, `false` or `null` from its `at`th letter. */
function literal(word: string, at: number): State {
  const key = `${word}${at}`;
  let state = literals.get(key);
  if (!state) {
    const expected = word.charCodeAt(at);
    const last = at === word.length - 1;
    state = (c) => (c !== expected ? fail(c, `in literal ${word} (expecting ${quoteChar(expected)})`) : last ? endValue : literal(word, at + 1));
    literals.set(key, state);
  }
  return state;
}
