import { ConfigError } from './feature-gates';

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration ("1m30s", "500ms", "0"), in milliseconds. */
export function parseDuration(text: string, flag: string): number {
  if (text === '0') return 0;
  const re = /([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * UNITS[m[2]];
    consumed = re.lastIndex;
  }
  if (consumed === 0 || consumed !== text.length) throw new ConfigError(`invalid argument "${text}" for "--${flag}" flag: time: invalid duration "${text}"`);
  return total;
}
