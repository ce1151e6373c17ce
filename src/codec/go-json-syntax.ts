/**
 * encoding/json's SyntaxError text for a JSON text JSON.parse refused: its scanner (checkValid)
 * run byte by byte to the first byte it refuses, named as quoteChar names it, with the scanner
 * state's words; or "unexpected end of JSON input" when the text stops before a value is whole.
 * Undefined for a text the scanner accepts.
 */
export function goJsonSyntaxError(text: string): string | undefined {
  const bytes = Buffer.from(text, 'utf8');
  const refused = scan(bytes);
  if (refused === undefined) return undefined;
  if (refused.at === bytes.length) return 'unexpected end of JSON input';
  return `invalid character ${quoteChar(bytes[refused.at])} ${refused.words}`;
}

// The scanner's states (stateBeginValue, stateInString, ...), numbered for a tight loop.
const VALUE = 0;
const VALUE_OR_EMPTY = 1;
const KEY = 2;
const KEY_OR_EMPTY = 3;
const END = 4;
const TOP = 5;
const STRING = 6;
const ESCAPE = 7;
const HEX = 8;
const NEG = 9;
const ZERO = 10;
const INT = 11;
const DOT = 12;
const FRAC = 13;
const EXP = 14;
const EXP_SIGN = 15;
const EXP_DIGITS = 16;
const LITERAL = 17;

/** The containers open: an object awaiting a key's value, an object's value, an array. */
const AWAIT_VALUE = 0;
const IN_VALUE = 1;
const IN_ARRAY = 2;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const ESCAPABLE = new Set([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22]);
const LITERALS: Record<number, string> = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };

/**
 * encoding/json's scanner over the bytes: the index of the first byte it refuses (the length when
 * the text stops before its value is whole) and the words of its error; undefined if it accepts all.
 */
function scan(bytes: Buffer): { at: number; words: string } | undefined {
  const stack: number[] = [];
  let state = VALUE;
  let hexLeft = 0;
  let word = '';
  let wordAt = 0;
  const refuse = (at: number, words: string) => ({ at, words });
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    switch (state) {
      case STRING:
        // the bulk of a body: its strings' ordinary bytes
        while (i < bytes.length && bytes[i] >= 0x20 && bytes[i] !== 0x22 && bytes[i] !== 0x5c) i++;
        if (i === bytes.length) return refuse(i, '');
        if (bytes[i] === 0x22) state = stack.length === 0 ? TOP : END;
        else if (bytes[i] === 0x5c) state = ESCAPE;
        else return refuse(i, 'in string literal');
        continue;
      case ESCAPE:
        if (c === 0x75) {
          state = HEX;
          hexLeft = 4;
        } else if (ESCAPABLE.has(c)) state = STRING;
        else return refuse(i, 'in string escape code');
        continue;
      case HEX:
        if (!isHex(c)) return refuse(i, 'in \\u hexadecimal character escape');
        if (--hexLeft === 0) state = STRING;
        continue;
      case NEG:
        if (c === 0x30) state = ZERO;
        else if (isDigit(c)) state = INT;
        else return refuse(i, 'in numeric literal');
        continue;
      case INT:
        if (isDigit(c)) continue;
        if (c === 0x2e) state = DOT;
        else if (c === 0x65 || c === 0x45) state = EXP;
        else break;
        continue;
      case ZERO:
        if (c === 0x2e) state = DOT;
        else if (c === 0x65 || c === 0x45) state = EXP;
        else break;
        continue;
      case DOT:
        if (!isDigit(c)) return refuse(i, 'after decimal point in numeric literal');
        state = FRAC;
        continue;
      case FRAC:
        if (isDigit(c)) continue;
        if (c === 0x65 || c === 0x45) state = EXP;
        else break;
        continue;
      case EXP:
        if (c === 0x2b || c === 0x2d) {
          state = EXP_SIGN;
          continue;
        }
        if (!isDigit(c)) return refuse(i, 'in exponent of numeric literal');
        state = EXP_DIGITS;
        continue;
      case EXP_SIGN:
        if (!isDigit(c)) return refuse(i, 'in exponent of numeric literal');
        state = EXP_DIGITS;
        continue;
      case EXP_DIGITS:
        if (isDigit(c)) continue;
        break;
      case LITERAL:
        if (c !== word.charCodeAt(wordAt)) return refuse(i, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(wordAt))})`);
        if (++wordAt === word.length) state = stack.length === 0 ? TOP : END;
        continue;
      case TOP:
        if (!isSpace(c)) return refuse(i, 'after top-level value');
        continue;
    }
    // A number ends at the byte that does not continue it, which the states below then read.
    if (state >= ZERO && state <= EXP_DIGITS) state = stack.length === 0 ? TOP : END;
    if (state === TOP) {
      if (!isSpace(c)) return refuse(i, 'after top-level value');
      continue;
    }
    if (isSpace(c)) continue;
    if (state === END) {
      const top = stack[stack.length - 1];
      if (top === AWAIT_VALUE) {
        if (c !== 0x3a) return refuse(i, 'after object key');
        stack[stack.length - 1] = IN_VALUE;
        state = VALUE;
      } else if (c === 0x2c) {
        if (top === IN_VALUE) stack[stack.length - 1] = AWAIT_VALUE;
        state = top === IN_VALUE ? KEY : VALUE;
      } else if (c === (top === IN_VALUE ? 0x7d : 0x5d)) {
        stack.pop();
        state = stack.length === 0 ? TOP : END;
      } else return refuse(i, top === IN_VALUE ? 'after object key:value pair' : 'after array element');
      continue;
    }
    if ((state === VALUE_OR_EMPTY && c === 0x5d) || (state === KEY_OR_EMPTY && c === 0x7d)) {
      stack.pop();
      state = stack.length === 0 ? TOP : END;
      continue;
    }
    if (state === KEY || state === KEY_OR_EMPTY) {
      if (c !== 0x22) return refuse(i, 'looking for beginning of object key string');
      state = STRING;
      continue;
    }
    // stateBeginValue
    if (c === 0x7b) {
      stack.push(AWAIT_VALUE);
      state = KEY_OR_EMPTY;
    } else if (c === 0x5b) {
      stack.push(IN_ARRAY);
      state = VALUE_OR_EMPTY;
    } else if (c === 0x22) state = STRING;
    else if (c === 0x2d) state = NEG;
    else if (c === 0x30) state = ZERO;
    else if (isDigit(c)) state = INT;
    else if (LITERALS[c] !== undefined) {
      state = LITERAL;
      word = LITERALS[c];
      wordAt = 1;
    } else return refuse(i, 'looking for beginning of value');
  }
  const whole = state === TOP || (stack.length === 0 && (state === ZERO || state === INT || state === FRAC || state === EXP_DIGITS));
  return whole ? undefined : refuse(bytes.length, '');
}

/** quoteChar: a byte as Go's scanner errors name it, in single quotes (strconv.Quote of the byte as a rune). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  return `'${goQuoteRune(c)}'`;
}

/** strconv.Quote's body for one rune below U+0100. */
function goQuoteRune(c: number): string {
  const escapes: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x0b: '\\v', 0x5c: '\\\\' };
  if (escapes[c]) return escapes[c];
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  // strconv.IsPrint of U+0080-U+00FF: the C1 controls, NBSP and the soft hyphen are not
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u${c.toString(16).padStart(4, '0')}`;
  return String.fromCharCode(c);
}
