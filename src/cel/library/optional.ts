import { celList, CelScalar, isCelList, isCelMap, listType } from '@bufbuild/cel';
import { kindOf } from './typed-values';
import { field, func, method, TYPED, typedMethod, typedValue, type Overload, type TypedValue } from './typed-values';

/**
 * cel-go's optional values (cel.OptionalTypes, enabled from 1.28) as functions and methods:
 * `optional.of`, `optional.ofNonZeroValue`, `optional.none`, and on an optional `hasValue`,
 * `value`, `orValue`, `or`; from its version 2 a list's `first()` and `last()` and
 * `optional.unwrap(list)` (kube's base environment takes every version). The format library returns them. The optional syntax (cel/parse.ts)
 * runs on the internal functions below, which cel/plan-form.ts calls in its place.
 */

const { BOOL, DYN } = CelScalar;
export const OPTIONAL = 'optional';

export const optionalOf = (value: unknown): TypedValue => typedValue(OPTIONAL, { value });
export const optionalNone = (): TypedValue => typedValue(OPTIONAL, {});

export const hasValue = (opt: unknown): boolean => (opt as { has(key: string): boolean }).has('value');

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
  method('first', listType(DYN), [], TYPED, (list: Iterable<unknown>) => {
    const [first] = list;
    return [...list].length === 0 ? optionalNone() : optionalOf(first);
  }),
  method('last', listType(DYN), [], TYPED, (list: Iterable<unknown>) => {
    const all = [...list];
    return all.length === 0 ? optionalNone() : optionalOf(all[all.length - 1]);
  }),
  // optUnwrap: the values of the optionals that have one
  func('optional.unwrap', [listType(DYN)], listType(DYN), (list: Iterable<unknown>) =>
    celList([...list].filter((opt) => kindOf(opt) === OPTIONAL && hasValue(opt)).map((opt) => field(opt, 'value')) as never),
  ),
];

/** The internal functions the optional syntax is planned as (cel-go's interpreter evaluates it itself). */
export const OPTIONAL_SELECT = '@optional_select';
export const OPTIONAL_INDEX = '@optional_index';
export const OPTIONAL_ELEMENT = '@optional_element';
export const OPTIONAL_ENTRY = '@optional_entry';

/**
 * applyQualifiers with an optional qualifier: an optional operand's value (none stays none), then
 * the key or index if present, as an optional. Index keys follow CEL's map lookups (numbers across
 * int, uint and double).
 */
function qualifyIfPresent(operand: unknown, key: unknown): TypedValue {
  if (kindOf(operand) === OPTIONAL) {
    if (!hasValue(operand)) return operand as TypedValue;
    operand = field(operand, 'value');
  }
  if (isCelMap(operand)) {
    if (operand.has(key as never)) return optionalOf(operand.get(key as never));
    const whole = typeof key === 'number' && Number.isInteger(key) ? BigInt(key) : typeof key === 'bigint' ? Number(key) : undefined;
    return whole !== undefined && operand.has(whole as never) ? optionalOf(operand.get(whole as never)) : optionalNone();
  }
  if (isCelList(operand)) {
    const index = typeof key === 'bigint' ? Number(key) : typeof key === 'number' && Number.isInteger(key) ? key : NaN;
    if (Number.isNaN(index)) throw new Error(`unsupported index type '${typeof key}' in list`);
    return index >= 0 && index < operand.size ? optionalOf(operand.get(index)) : optionalNone();
  }
  throw new Error(`no such key: ${String(key)}`);
}

/** An optional element or entry value; cel-go's error for anything else (invalidOptionalElementInit, invalidOptionalEntryInit). */
function optionalValue(opt: unknown, what: string): { present: boolean; value: unknown } {
  if (kindOf(opt) !== OPTIONAL) throw new Error(`cannot initialize optional ${what} from non-optional value ${String(opt)}`);
  return hasValue(opt) ? { present: true, value: field(opt, 'value') } : { present: false, value: undefined };
}

export const optionalSyntaxLibrary: Overload[] = [
  func(OPTIONAL_SELECT, [DYN, CelScalar.STRING], OPTIONAL, qualifyIfPresent),
  func(OPTIONAL_INDEX, [DYN, DYN], OPTIONAL, qualifyIfPresent),
  func(OPTIONAL_ELEMENT, [DYN], listType(DYN), (opt: unknown) => {
    const { present, value } = optionalValue(opt, 'list element');
    return present ? [value] : [];
  }),
  func(OPTIONAL_ENTRY, [TYPED, DYN, DYN], TYPED, (map: unknown, key: unknown, opt: unknown) => {
    const { present, value } = optionalValue(opt, 'entry');
    const out = new Map(isCelMap(map) ? map.entries() : []);
    if (present) out.set(key as string, value as never);
    return out;
  }),
];
