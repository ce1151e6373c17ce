import { cronScheduleError } from '../../resources/cron-schedule';

/** A parsed schedule: when it fires next after a moment. */
export interface CronSchedule {
  /** The first firing strictly after `afterMs`, or null when there is none within five years (robfig/cron gives up there too). */
  next(afterMs: number): number | null;
}

interface FieldSpec {
  min: number;
  max: number;
  names?: string[];
}

const FIELDS: FieldSpec[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const GO_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const FIVE_YEARS_DAYS = 5 * 366;

/** A field's allowed values, and whether it was "*" or "?" without a step (robfig's starBit). */
interface FieldSet {
  values: Set<number>;
  star: boolean;
}

function parseValue(text: string, spec: FieldSpec): number {
  const named = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  return named >= 0 ? named + spec.min : Number(text);
}

function parseField(text: string, spec: FieldSpec): FieldSet {
  const values = new Set<number>();
  let star = false;
  for (const expr of text.split(',').filter((e) => e !== '')) {
    const [range, stepText] = expr.split('/');
    const [low, high] = range.split('-');
    const all = low === '*' || low === '?';
    const start = all ? spec.min : parseValue(low, spec);
    const step = stepText === undefined ? 1 : Number(stepText);
    const end = all || (stepText !== undefined && high === undefined) ? spec.max : high === undefined ? start : parseValue(high, spec);
    if (all && step === 1) star = true;
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return { values, star };
}

/** Wall-clock parts of an instant in a zone, and the zone's offset from UTC then. */
function wallClock(ms: number, formatter: Intl.DateTimeFormat): { y: number; mo: number; d: number; h: number; mi: number; offsetMs: number } {
  const parts = Object.fromEntries(formatter.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const [y, mo, d, h, mi, s] = ['year', 'month', 'day', 'hour', 'minute', 'second'].map((k) => Number(parts[k]));
  const hour = h === 24 ? 0 : h;
  const asUtc = Date.UTC(y, mo - 1, d, hour, mi, s);
  return { y, mo, d, h: hour, mi, offsetMs: asUtc - Math.floor(ms / 1000) * 1000 };
}

/** The instant a wall-clock time of the zone names (the later offset's reading when it is ambiguous or skipped). */
function instantOf(y: number, mo: number, d: number, h: number, mi: number, formatter: Intl.DateTimeFormat): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi);
  const first = guess - wallClock(guess, formatter).offsetMs;
  return guess - wallClock(first, formatter).offsetMs;
}

function fieldSchedule(fields: FieldSet[], formatter: Intl.DateTimeFormat): CronSchedule {
  const [minutes, hours, dom, months, dow] = fields;
  const dayMatches = (y: number, mo: number, d: number): boolean => {
    const domMatch = dom.values.has(d);
    const dowMatch = dow.values.has(new Date(Date.UTC(y, mo - 1, d)).getUTCDay());
    // dayMatches: with either field a star both must match, else either may.
    return dom.star || dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  };
  const sortedHours = [...hours.values].sort((a, b) => a - b);
  const sortedMinutes = [...minutes.values].sort((a, b) => a - b);
  return {
    next(afterMs) {
      const start = wallClock(afterMs, formatter);
      for (let day = 0; day < FIVE_YEARS_DAYS; day++) {
        const date = new Date(Date.UTC(start.y, start.mo - 1, start.d + day));
        const [y, mo, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
        if (!months.values.has(mo) || !dayMatches(y, mo, d)) continue;
        for (const h of sortedHours) {
          for (const mi of sortedMinutes) {
            const at = instantOf(y, mo, d, h, mi, formatter);
            if (at > afterMs) return at;
          }
        }
      }
      return null;
    },
  };
}

/** ConstantDelaySchedule: every whole second count of the duration (at least one), from the second started. */
function everySchedule(text: string): CronSchedule {
  let ms = 0;
  for (const [, num, unit] of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) ms += Number(num) * GO_UNITS[unit];
  const delay = Math.max(1000, ms - (ms % 1000));
  return { next: (afterMs) => afterMs - (afterMs % 1000) + delay };
}

/**
 * cron.ParseStandard, evaluated in `timeZone` (an IANA name; the controller's own zone when
 * absent, as kube-controller-manager's time.Local): the error text of the parser when it does not parse.
 */
export function parseCronSchedule(schedule: string, timeZone: string | undefined): CronSchedule | { error: string } {
  const error = cronScheduleError(schedule);
  if (error) return { error };
  let spec = schedule.trim();
  let zone = timeZone;
  const tz = /^(?:CRON_)?TZ=(\S+)\s*/.exec(spec);
  if (tz) {
    zone = tz[1];
    spec = spec.slice(tz[0].length);
  }
  if (spec.startsWith('@every ')) return everySchedule(spec.slice('@every '.length));
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const fields = (DESCRIPTORS[spec] ?? spec).split(/\s+/).filter((f) => f !== '');
  return fieldSchedule(
    fields.map((f, i) => parseField(f, FIELDS[i])),
    formatter,
  );
}
