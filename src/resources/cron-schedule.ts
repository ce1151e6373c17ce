/**
 * The checks of cron.ParseStandard (robfig/cron v3), which kube-apiserver runs on a CronJob's
 * schedule: five fields or a descriptor, with the parser's own error text.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** Minute, hour, day of month, month, day of week: the standard parser's fields in order. */
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: Object.fromEntries(MONTH_NAMES.map((n, i) => [n, i + 1])) },
  { min: 0, max: 6, names: Object.fromEntries(DAY_NAMES.map((n, i) => [n, i])) },
];

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Go's time.ParseDuration accepts a sequence of decimal numbers with units, optionally signed. */
const GO_DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$/;

class ScheduleError extends Error {}

/** strconv.Atoi's error, as mustParseInt wraps it. */
function parseNumber(expr: string): number {
  if (!/^[-+]?\d+$/.test(expr)) throw new ScheduleError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const num = Number(expr);
  if (!Number.isSafeInteger(num) || Math.abs(num) > 2 ** 63 - 1) {
    throw new ScheduleError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  }
  if (num < 0) throw new ScheduleError(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function parseIntOrName(expr: string, bounds: Bounds): number {
  const named = bounds.names?.[expr.toLowerCase()];
  return named ?? parseNumber(expr);
}

function checkRange(expr: string, bounds: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseIntOrName(lowAndHigh[0], bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], bounds);
    else throw new ScheduleError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseNumber(rangeAndStep[1]);
    // "N/step" means "N-max/step".
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) {
    throw new ScheduleError(`too many slashes: ${expr}`);
  }
  if (start < bounds.min) throw new ScheduleError(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new ScheduleError(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new ScheduleError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new ScheduleError(`step of range should be a positive number: ${expr}`);
}

function checkDescriptor(descriptor: string): void {
  if (DESCRIPTORS.has(descriptor)) return;
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    const duration = descriptor.slice(every.length);
    if (!GO_DURATION.test(duration)) {
      throw new ScheduleError(`failed to parse duration ${descriptor}: time: invalid duration ${JSON.stringify(duration)}`);
    }
    return;
  }
  throw new ScheduleError(`unrecognized descriptor: ${descriptor}`);
}

/** What time.LoadLocation accepts, as far as the ICU time zone data knows it. */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function check(schedule: string): void {
  if (schedule.length === 0) throw new ScheduleError('empty spec string');
  let spec = schedule;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    if (!isKnownTimeZone(zone)) throw new ScheduleError(`provided bad location ${zone}: unknown time zone ${zone}`);
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return checkDescriptor(spec);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== FIELDS.length) {
    throw new ScheduleError(`expected exactly ${FIELDS.length} fields, found ${fields.length}: [${fields.join(' ')}]`);
  }
  fields.forEach((f, i) => {
    for (const expr of f.split(',').filter((e) => e !== '')) checkRange(expr, FIELDS[i]);
  });
}

/** The parser's error for an invalid schedule, or null when it parses. */
export function cronScheduleError(schedule: string): string | null {
  try {
    check(schedule);
    return null;
  } catch (err) {
    if (err instanceof ScheduleError) return err.message;
    throw err;
  }
}
