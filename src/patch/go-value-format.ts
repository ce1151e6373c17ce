/**
 * A decoded JSON value as Go's fmt prints an interface{} holding it with %v / %+v: maps as
 * `map[k:v ...]` with sorted keys, slices as `[a b]`, float64 as strconv's shortest %g (an
 * exponent from 1e+06 and below 1e-04), nil as `<nil>`.
 */
export function goFormatValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormatValue).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${k}:${goFormatValue((value as Record<string, unknown>)[k])}`);
    return `map[${entries.join(' ')}]`;
  }
  if (typeof value === 'number') return goFloat(value);
  return String(value);
}

function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, exponent] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}
