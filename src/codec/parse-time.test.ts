import { parseTime } from './protobuf-encode';

/** What parseTime answered before its positional fast path: Date.parse, and the fraction's digits. */
function byDateParse(value: string): { seconds: number; nanos: number } {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return { seconds: 0, nanos: 0 };
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  return { seconds: Math.floor(ms / 1000), nanos: Number(fraction.slice(0, 9).padEnd(9, '0')) };
}

describe('parseTime', () => {
  it.each([
    '2026-11-28T11:00:00Z',
    '1970-01-01T00:00:00Z',
    '2024-02-29T23:59:59Z',
    '2026-02-30T00:00:00Z',
    '2026-04-31T12:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:59:60Z',
    '0099-01-01T00:00:00Z',
    '2026-1-01T00:00:00Z ',
    '2026-01-01T00:00:0xZ',
    '2026-01-01T00:00:00.123456Z',
    '2026-01-01T01:00:00+01:00',
    'not a time',
  ])('reads %j as Date.parse does', (value) => {
    expect(parseTime(value)).toEqual(byDateParse(value));
  });
});
