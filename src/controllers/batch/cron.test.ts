import { parseCronSchedule, type CronSchedule } from './cron';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function schedule(spec: string, zone = 'UTC'): CronSchedule {
  const parsed = parseCronSchedule(spec, zone);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

test('the next time of standard fields, steps, ranges, names and descriptors', () => {
  expect(iso(schedule('*/15 * * * *').next(at('2026-01-01T10:07:30Z')))).toBe('2026-01-01T10:15:00.000Z');
  expect(iso(schedule('0 3 * * *').next(at('2026-01-01T03:00:00Z')))).toBe('2026-01-02T03:00:00.000Z');
  expect(iso(schedule('30 9 * * mon-fri').next(at('2026-01-02T10:00:00Z')))).toBe('2026-01-05T09:30:00.000Z');
  expect(iso(schedule('0 0 1 jan,jul *').next(at('2026-02-01T00:00:00Z')))).toBe('2026-07-01T00:00:00.000Z');
  expect(iso(schedule('@hourly').next(at('2026-01-01T10:00:00Z')))).toBe('2026-01-01T11:00:00.000Z');
  expect(iso(schedule('@weekly').next(at('2026-01-01T00:00:00Z')))).toBe('2026-01-04T00:00:00.000Z');
  expect(iso(schedule('@every 90s').next(at('2026-01-01T00:00:00.500Z')))).toBe('2026-01-01T00:01:30.000Z');
});

test('day of month and day of week: either matches when both are restricted, both must when one is a star', () => {
  // The 13th or any Friday.
  expect(iso(schedule('0 0 13 * 5').next(at('2026-02-01T00:00:00Z')))).toBe('2026-02-06T00:00:00.000Z');
  // "*/1" keeps the star; "*/2" does not, so it is or-ed with the day of week.
  expect(iso(schedule('0 0 */1 * 5').next(at('2026-02-01T00:00:00Z')))).toBe('2026-02-06T00:00:00.000Z');
  expect(iso(schedule('0 0 */2 * 5').next(at('2026-02-01T00:00:00Z')))).toBe('2026-02-03T00:00:00.000Z');
  // The 31st only in months that have one; none in five years means null.
  expect(iso(schedule('0 0 31 4 *').next(at('2026-01-01T00:00:00Z')))).toBeNull();
});

test('a time zone moves the wall clock times, across a daylight saving change too', () => {
  expect(iso(schedule('0 9 * * *', 'Asia/Tokyo').next(at('2026-01-01T00:00:00Z')))).toBe('2026-01-02T00:00:00.000Z');
  // New York: 9:00 is 14:00 UTC in winter and 13:00 UTC after the March change.
  const ny = schedule('0 9 * * *', 'America/New_York');
  expect(iso(ny.next(at('2026-03-07T15:00:00Z')))).toBe('2026-03-08T13:00:00.000Z');
  expect(iso(ny.next(at('2026-03-06T15:00:00Z')))).toBe('2026-03-07T14:00:00.000Z');
});

test('an invalid schedule is the parser error', () => {
  expect(parseCronSchedule('61 * * * *', 'UTC')).toEqual({ error: 'end of range (61) above maximum (59): 61' });
  expect(parseCronSchedule('* * *', 'UTC')).toEqual({ error: 'expected exactly 5 fields, found 3: [* * *]' });
});
