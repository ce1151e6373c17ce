/** Field-level validation errors, rendered exactly as apimachinery's field.Error does. */
import { goJsonMarshalOf } from './go-json';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message never shows the offending value. */
const valueless = new Set<FieldErrorType>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'InternalError']);

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  detail?: string;
}

export type FieldErrorList = FieldError[];

/** Printable ASCII other than `"` and `\`: quoted as it is. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** strconv.IsPrint: letters, marks, numbers, punctuation, symbols (and the ASCII space, handled by PLAIN's range). */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** Go's %q (strconv.Quote): printable text as it is; `\a`…`\v`; other runes `\xNN`, `\uNNNN` or `\UNNNNNNNN`. */
export function goQuote(value: string): string {
  if (PLAIN.test(value)) return `"${value}"`;
  let out = '"';
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    // A lone surrogate has no UTF-8; Go's decoders read it as U+FFFD.
    if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else if (ESCAPES[ch] !== undefined) out += ESCAPES[ch];
    else if (PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** A value field.Error prints as given text: Go's %v of a float64, which JSON would write otherwise. */
export class GoSyntax {
  constructor(readonly text: string) {}
}

/** field.Error.ErrorBody's value (apimachinery 1.34+): scalars as Go prints them, anything else as JSON. */
function formatValue(value: unknown): string {
  if (value instanceof GoSyntax) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // Kinds' values are Go structs and slices: their fields in the order they came, not sorted as a map's.
  return goJsonMarshalOf(value, () => false);
}

export function fieldErrorBody(e: FieldError): string {
  let body = typeText[e.type];
  if (!valueless.has(e.type) && 'value' in e) body += `: ${formatValue(e.value)}`;
  if (e.detail) body += `: ${e.detail}`;
  return body;
}

export function fieldErrorMessage(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}

/** utilerrors.NewAggregate(...).Error(): one message bare, several in brackets, duplicates folded. */
export function aggregateMessage(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

export const field = {
  required: (path: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: path, detail }),
  invalid: (path: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field: path, value, detail }),
  forbidden: (path: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: path, detail }),
  duplicate: (path: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: path, value }),
  notFound: (path: string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: path, value }),
  internal: (path: string, detail: string): FieldError => ({ type: 'InternalError', field: path, detail }),
  tooLong: (path: string, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: path,
    detail: `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`,
  }),
  tooMany: (path: string, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field: path,
    value: actual,
    detail: `must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
  }),
  notSupported: (path: string, value: unknown, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: path,
    value,
    detail: `supported values: ${supported.map(goQuote).join(', ')}`,
  }),
  typeInvalid: (path: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field: path,
    value,
    detail,
  }),
};
