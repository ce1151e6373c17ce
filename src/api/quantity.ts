/**
 * resource.Quantity values, exactly: parsed ("1.5Gi", "500m", "2e3") so that sizes can be
 * compared, as apimachinery's Quantity.Cmp does. Quantities keep the text a client sent.
 */

/** digits × 10^pow10 × 2^pow2, with no rounding. */
export interface Quantity {
  digits: bigint;
  pow10: number;
  pow2: number;
}

const FORM = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** The value of a quantity as written in JSON (a string or a number); null when it is not one. */
export function parseQuantity(value: unknown): Quantity | null {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return null;
  const m = FORM.exec(text);
  if (!m) return null;
  const [, sign, number, suffix = ''] = m;
  const [whole, fraction = ''] = number.split('.');
  const digits = BigInt(`${sign}${whole}${fraction}` || '0');
  let pow10 = -fraction.length;
  let pow2 = 0;
  if (suffix in BINARY) pow2 = BINARY[suffix];
  else if (suffix in DECIMAL) pow10 += DECIMAL[suffix];
  else pow10 += Number(suffix.slice(1));
  return { digits, pow10, pow2 };
}

function scaled(q: Quantity, pow10: number, pow2: number): bigint {
  return q.digits * 10n ** BigInt(q.pow10 - pow10) * 2n ** BigInt(q.pow2 - pow2);
}

/** Quantity.Cmp: -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const pow10 = Math.min(a.pow10, b.pow10);
  const pow2 = Math.min(a.pow2, b.pow2);
  const x = scaled(a, pow10, pow2);
  const y = scaled(b, pow10, pow2);
  return x < y ? -1 : x > y ? 1 : 0;
}

export const ZERO_QUANTITY: Quantity = { digits: 0n, pow10: 0, pow2: 0 };

/** Quantity.Sign() > 0, for a value that parses as a quantity at all. */
export function isPositiveQuantity(value: unknown): boolean {
  const q = parseQuantity(value);
  return q !== null && compareQuantities(q, ZERO_QUANTITY) > 0;
}
