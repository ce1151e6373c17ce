import { parseQuantity } from '../../api/quantity';

/**
 * Quantities added, compared and printed as apimachinery's resource.Quantity does: the value kept
 * to the nano (rounded up, as parsing does), with the format (DecimalSI, BinarySI,
 * DecimalExponent) its text had, and String() in canonical form ("1500m", "1536Mi", "2").
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Amount {
  /** The value in units of 10^-9. */
  nanos: bigint;
  format: QuantityFormat;
}

/** A resource name to its amount, as corev1.ResourceList. */
export type ResourceList = Map<string, Amount>;

const NANO = 10n ** 9n;
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_SUFFIXES: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };

export const zeroAmount = (format: QuantityFormat = 'DecimalSI'): Amount => ({ nanos: 0n, format });
export const countAmount = (n: number): Amount => ({ nanos: BigInt(n) * NANO, format: 'DecimalSI' });

/** Division rounding towards +infinity, as Quantity rounds a value finer than nano up. */
function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
}

/** resource.ParseQuantity; null for what is not a quantity. */
export function parseAmount(value: unknown): Amount | null {
  const q = parseQuantity(value);
  if (!q) return null;
  const text = String(value);
  const format: QuantityFormat = /(Ki|Mi|Gi|Ti|Pi|Ei)$/.test(text) ? 'BinarySI' : /[eE][+-]?[0-9]+$/.test(text) ? 'DecimalExponent' : 'DecimalSI';
  let num = q.digits * 2n ** BigInt(q.pow2);
  let den = 1n;
  const exp = q.pow10 + 9;
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den = 10n ** BigInt(-exp);
  return { nanos: ceilDiv(num, den), format };
}

export function addAmounts(a: Amount, b: Amount): Amount {
  // Quantity.Add: a zero takes the other's format.
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

const subtractAmounts = (a: Amount, b: Amount): Amount => ({ nanos: a.nanos - b.nanos, format: a.format });
export const compareAmounts = (a: Amount, b: Amount): number => (a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0);

/** Quantity.MilliValue (rounded up, as kube's). */
export const milliValue = (a: Amount): bigint => ceilDiv(a.nanos, 10n ** 6n);

function decimalText(nanos: bigint, format: QuantityFormat): string {
  let mantissa = nanos;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const off = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(off);
  exponent -= off;
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  const suffix = DECIMAL_SUFFIXES[exponent];
  return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
}

/** Quantity.String(): the canonical text (CanonicalizeBytes). */
export function amountText(a: Amount): string {
  if (a.nanos === 0n) return '0';
  const sign = a.nanos < 0n ? '-' : '';
  const abs = a.nanos < 0n ? -a.nanos : a.nanos;
  // BinarySI below 1024 or with a fraction is printed as DecimalSI.
  if (a.format === 'BinarySI' && abs >= 1024n * NANO && abs % NANO === 0n) {
    let value = abs / NANO;
    let power = 0;
    while (power < BINARY_SUFFIXES.length - 1 && value % 1024n === 0n) {
      value /= 1024n;
      power++;
    }
    return `${sign}${value}${BINARY_SUFFIXES[power]}`;
  }
  return sign + decimalText(abs, a.format === 'BinarySI' ? 'DecimalSI' : a.format);
}

/** A ResourceList from a JSON object; entries that are not quantities are left out. */
export function resourceListOf(value: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [name, text] of Object.entries(value)) {
    const amount = parseAmount(text);
    if (amount) out.set(name, amount);
  }
  return out;
}

/** A ResourceList as JSON, in canonical text. */
export function resourceListJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...list.keys()].sort()) out[name] = amountText(list.get(name)!);
  return out;
}

/** quota.Add. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [name, amount] of b) out.set(name, out.has(name) ? addAmounts(out.get(name)!, amount) : amount);
  return out;
}

/** quota.SubtractWithNonNegativeResult. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [name, amount] of a) {
    const diff = b.has(name) ? subtractAmounts(amount, b.get(name)!) : amount;
    out.set(name, diff.nanos < 0n ? zeroAmount(diff.format) : diff);
  }
  return out;
}

/** quota.Mask: only the named resources. */
export function maskList(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const name of names) if (list.has(name)) out.set(name, list.get(name)!);
  return out;
}

/** quota.RemoveZeros. */
export function withoutZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, a]) => a.nanos !== 0n));
}

/** quota.Equals. */
export function listsEqual(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [name, amount] of a) if (!b.has(name) || compareAmounts(amount, b.get(name)!) !== 0) return false;
  return true;
}

/** quota.LessThanOrEqual: the names of `a` above `b` (a name `b` lacks is not limited). */
export function exceededNames(a: ResourceList, b: ResourceList): string[] {
  return [...a].filter(([name, amount]) => b.has(name) && compareAmounts(amount, b.get(name)!) > 0).map(([name]) => name);
}

/** prettyPrint of kube's quota admission: sorted "name=value" joined by commas. */
export function listText(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((name) => `${name}=${amountText(list.get(name)!)}`)
    .join(',');
}
