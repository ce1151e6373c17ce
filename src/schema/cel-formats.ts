import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';

/**
 * The string formats CEL sees typed in a custom resource, as UnstructuredToVal converts them
 * (apiserver/pkg/cel/common/valuesunstructured.go): `duration` a google.protobuf.Duration,
 * `date` and `date-time` a google.protobuf.Timestamp, `byte` bytes. A string its format does
 * not parse stays a string (the schema's format check refuses the object anyway).
 */

const env = celEnv();
const toDuration = plan(env, parse('duration(x)'));
const toTimestamp = plan(env, parse('timestamp(x)'));

const NS: Record<string, bigint> = { ns: 1n, us: 1_000n, µs: 1_000n, μs: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** Go's time.ParseDuration, in nanoseconds; null when it does not parse. */
function goDurationNanos(s: string): bigint | null {
  const m = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(s);
  if (!m) return null;
  let total = 0n;
  for (const [, whole, fraction, unit] of m[2].matchAll(/(\d*)\.?(\d*)(ns|us|µs|μs|ms|s|m|h)/g)) {
    const scale = NS[unit];
    total += BigInt(whole || '0') * scale + (fraction ? (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length) : 0n);
  }
  return m[1] === '-' ? -total : total;
}

/** strfmt's unit names (duration.go timeUnits): a unit matches a name, or starts with the last, longest one. */
const LOOSE_UNITS: [bigint, string[]][] = [
  [NS.ns, ['ns', 'nano']],
  [NS.us, ['us', 'µs', 'micro']],
  [NS.ms, ['ms', 'milli']],
  [NS.s, ['s', 'sec']],
  [NS.m, ['m', 'min']],
  [NS.h, ['h', 'hr', 'hour']],
  [24n * NS.h, ['d', 'day']],
  [7n * 24n * NS.h, ['w', 'wk', 'week']],
];

/** strfmt.ParseDuration: Go's syntax, else "<n> <unit>" terms summed ("3 days", "1 wk"). */
function durationNanos(s: string): bigint | null {
  const go = goDurationNanos(s);
  if (go !== null) return go;
  let total = 0n;
  let matched = false;
  for (const [, n, rawUnit] of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = rawUnit.trim().toLowerCase();
    for (const [scale, names] of LOOSE_UNITS) {
      names.forEach((name, i) => {
        if (unit === name || (i === names.length - 1 && unit.startsWith(name))) {
          matched = true;
          total += BigInt(n) * scale;
        }
      });
    }
  }
  return matched ? total : null;
}

/** A value of a string-typed schema node as CEL sees it. */
export function formattedCelValue(format: string | undefined, value: string): unknown {
  switch (format) {
    case 'duration': {
      const nanos = durationNanos(value);
      if (nanos === null) return value;
      const result = toDuration({ x: `${nanos}ns` } as never);
      return isCelError(result) ? value : result;
    }
    case 'date':
    case 'date-time': {
      const text = format === 'date' ? `${value}T00:00:00Z` : value.toUpperCase();
      const result = toTimestamp({ x: text } as never);
      return isCelError(result) ? value : result;
    }
    case 'byte':
      return /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? new Uint8Array(Buffer.from(value, 'base64')) : value;
    default:
      return value;
  }
}
