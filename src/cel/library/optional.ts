import { CelScalar, isCelList, isCelMap } from '@bufbuild/cel';
import { field, func, typedMethod, typedValue, type Overload, type TypedValue } from './typed-values';

/**
 * cel-go's optional values (cel.OptionalTypes, enabled from 1.28) as functions and methods:
 * `optional.of`, `optional.ofNonZeroValue`, `optional.none`, and on an optional `hasValue`,
 * `value`, `orValue`, `or`. The format library returns them. The optional syntax (`?.`, `[?`) is
 * the parser's, which kapi's has not.
 */

const { BOOL, DYN } = CelScalar;
export const OPTIONAL = 'optional';

export const optionalOf = (value: unknown): TypedValue => typedValue(OPTIONAL, { value });
export const optionalNone = (): TypedValue => typedValue(OPTIONAL, {});

const hasValue = (opt: unknown): boolean => (opt as { has(key: string): boolean }).has('value');

/** types.IsZeroValue: the zero of its type. */
function isZero(v: unknown): boolean {
  if (v === null || v === false || v === '' || v === 0n || v === 0) return true;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v) || isCelMap(v)) return v.size === 0;
  return typeof v === 'object' && v !== null && 'value' in v && (v as { value: unknown }).value === 0n;
}

export const optionalLibrary: Overload[] = [
  func('optional.of', [DYN], OPTIONAL, optionalOf),
  func('optional.ofNonZeroValue', [DYN], OPTIONAL, (v: unknown) => (isZero(v) ? optionalNone() : optionalOf(v))),
  func('optional.none', [], OPTIONAL, optionalNone),
  typedMethod(OPTIONAL, 'hasValue', [], BOOL, hasValue),
  typedMethod(OPTIONAL, 'value', [], DYN, (opt) => {
    if (!hasValue(opt)) throw new Error('optional.none() dereference');
    return field(opt, 'value');
  }),
  typedMethod(OPTIONAL, 'orValue', [DYN], DYN, (opt, other: unknown) => (hasValue(opt) ? field(opt, 'value') : other)),
  typedMethod(OPTIONAL, 'or', [OPTIONAL], OPTIONAL, (opt, other) => (hasValue(opt) ? opt : other)),
];
