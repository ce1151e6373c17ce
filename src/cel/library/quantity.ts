import { CelScalar } from '@bufbuild/cel';
import { compareQuantities, parseQuantity, type Quantity } from '../../api/quantity';
import { field, func, typedMethod, typedValue, type Overload, type TypedValue } from './typed-values';

/**
 * Kubernetes' quantity library (apiserver/pkg/cel/library/quantity.go): `quantity()`,
 * `isQuantity()`, and on a quantity `sign`, `isInteger`, `asInteger`, `asApproximateFloat`, `add`,
 * `sub`, `compareTo`, `isGreaterThan`, `isLessThan`. A quantity is kept as m × 2^x × 5^y with m
 * prime to 10, one form per value, so `==` compares values as resource.Quantity.Equal does
 * (quantity('1Gi') == quantity('1024Mi')).
 */

const { STRING, BOOL, INT, DOUBLE } = CelScalar;
const KIND = 'quantity';

/** resource.ErrFormatWrong, ErrNumeric and ErrSuffix. */
const FORMAT = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$/;

interface Exact {
  m: bigint;
  x: number;
  y: number;
}

function exact(q: Quantity): Exact {
  let m = q.digits;
  let x = q.pow2 + q.pow10;
  let y = q.pow10;
  if (m === 0n) return { m: 0n, x: 0, y: 0 };
  while (m % 2n === 0n) {
    m /= 2n;
    x++;
  }
  while (m % 5n === 0n) {
    m /= 5n;
    y++;
  }
  return { m, x, y };
}

const quantityValue = (e: Exact): TypedValue => typedValue(KIND, { m: e.m, x: BigInt(e.x), y: BigInt(e.y) });

function exactOf(value: unknown): Exact {
  return { m: field<bigint>(value, 'm'), x: Number(field<bigint>(value, 'x')), y: Number(field<bigint>(value, 'y')) };
}

const asQuantity = (e: Exact): Quantity => ({ digits: e.m, pow10: e.y, pow2: e.x - e.y });

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
/** Decimal exponents kapi computes with; beyond them exact arithmetic would take unbounded time. */
const MAX_EXPONENT = 1000;

function pow(base: bigint, e: number): bigint {
  return e > 0 ? base ** BigInt(e) : 1n;
}

/**
 * ParseQuantity's last steps: a value finer than 1n is rounded up (away from zero) to the next
 * nano, and a binary-suffixed one above 2^63-1 is capped there.
 */
function bounded(e: Exact, binary: boolean): Exact {
  const sign = e.m < 0n ? -1n : 1n;
  let out = e;
  if (e.x + 9 < 0 || e.y + 9 < 0) {
    const num = sign * e.m * pow(2n, e.x + 9) * pow(5n, e.y + 9);
    const den = pow(2n, -(e.x + 9)) * pow(5n, -(e.y + 9));
    out = exact({ digits: sign * ((num + den - 1n) / den), pow10: -9, pow2: 0 });
  }
  if (binary && out.x >= 0 && out.y >= 0 && sign * out.m * pow(2n, out.x) * pow(5n, out.y) > INT64_MAX)
    out = exact({ digits: sign * INT64_MAX, pow10: 0, pow2: 0 });
  return out;
}

/** resource.ParseQuantity, with its error texts. */
export function parseKubeQuantity(text: string): Exact {
  const form = FORMAT.exec(text);
  if (!form) throw new Error(FORMAT_ERROR);
  const q = parseQuantity(text);
  if (!q) throw new Error(NUMBER.test(form[1]) ? "unable to parse quantity's suffix" : 'unable to parse numeric part of quantity');
  if (Math.abs(q.pow10) > MAX_EXPONENT) throw new Error("unable to parse quantity's suffix");
  return bounded(exact(q), form[2].endsWith('i'));
}

function sum(a: Exact, b: Exact, sign: 1n | -1n): TypedValue {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  const scale = (e: Exact) => e.m * 2n ** BigInt(e.x - x) * 5n ** BigInt(e.y - y);
  return quantityValue(exact({ digits: scale(a) + sign * scale(b), pow10: y, pow2: x - y }));
}

const intQuantity = (n: bigint): Exact => exact({ digits: n, pow10: 0, pow2: 0 });
const sign = (q: unknown): bigint => BigInt(Math.sign(Number(exactOf(q).m)));
const compare = (a: unknown, b: unknown): number => compareQuantities(asQuantity(exactOf(a)), asQuantity(exactOf(b)));

/** Quantity.AsInt64: the value when it is a whole number that fits in an int64. */
function asInt64(e: Exact): bigint | null {
  if (e.x < 0 || e.y < 0) return null;
  const v = e.m * 2n ** BigInt(e.x) * 5n ** BigInt(e.y);
  return v < INT64_MIN || v > INT64_MAX ? null : v;
}

export const quantityLibrary: Overload[] = [
  func('quantity', [STRING], KIND, (text: string) => quantityValue(parseKubeQuantity(text))),
  func('isQuantity', [STRING], BOOL, (text: string) => {
    try {
      parseKubeQuantity(text);
      return true;
    } catch {
      return false;
    }
  }),
  // kube declares `sign` as a function (`sign(q)`) and documents it as a method (`q.sign()`): both are served.
  func('sign', [KIND], INT, (q) => sign(q)),
  typedMethod(KIND, 'sign', [], INT, (q) => sign(q)),
  typedMethod(KIND, 'isInteger', [], BOOL, (q) => asInt64(exactOf(q)) !== null),
  typedMethod(KIND, 'asInteger', [], INT, (q) => {
    const v = asInt64(exactOf(q));
    if (v === null) throw new Error('cannot convert value to integer');
    return v;
  }),
  typedMethod(KIND, 'asApproximateFloat', [], DOUBLE, (q) => {
    const e = exactOf(q);
    return Number(e.m) * 10 ** e.y * 2 ** (e.x - e.y);
  }),
  typedMethod(KIND, 'add', [KIND], KIND, (q, other) => sum(exactOf(q), exactOf(other), 1n)),
  typedMethod(KIND, 'add', [INT], KIND, (q, n: bigint) => sum(exactOf(q), intQuantity(n), 1n)),
  typedMethod(KIND, 'sub', [KIND], KIND, (q, other) => sum(exactOf(q), exactOf(other), -1n)),
  typedMethod(KIND, 'sub', [INT], KIND, (q, n: bigint) => sum(exactOf(q), intQuantity(n), -1n)),
  typedMethod(KIND, 'compareTo', [KIND], INT, (q, other) => BigInt(compare(q, other))),
  typedMethod(KIND, 'isGreaterThan', [KIND], BOOL, (q, other) => compare(q, other) === 1),
  typedMethod(KIND, 'isLessThan', [KIND], BOOL, (q, other) => compare(q, other) === -1),
];
