import { ConfigError } from './feature-gates';

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration ("1m30s", "-500ms", "0"), in milliseconds; null when Go refuses it. */
export function goDuration(text: string): number | null {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[-+]/, '');
  if (body === '0') return 0;
  const re = /([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    total += Number(m[1]) * UNITS[m[2]];
    consumed = re.lastIndex;
  }
  if (consumed === 0 || consumed !== body.length) return null;
  return sign * total;
}

/** A duration flag, in milliseconds; Go's error text when it is not one. */
export function parseDuration(text: string, flag: string): number {
  const ms = goDuration(text);
  if (ms === null || ms < 0) throw new ConfigError(`invalid argument "${text}" for "--${flag}" flag: time: invalid duration "${text}"`);
  return ms;
}
