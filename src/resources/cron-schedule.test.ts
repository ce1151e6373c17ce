import { cronScheduleError } from './cron-schedule';

describe('cron.ParseStandard, as kube-apiserver checks a CronJob schedule', () => {
  test.each([
    '0 3 * * *',
    '*/15 * * * *',
    '0 0 1,15 * mon-fri',
    '5 4 * JAN-mar SUN',
    '0-59/5 0-23 1-31 1-12 0-6',
    '? * * * *',
    '@hourly',
    '@daily',
    '@every 1h30m',
  ])('%s parses', (schedule) => {
    expect(cronScheduleError(schedule)).toBeNull();
  });

  test.each([
    ['', 'empty spec string'],
    ['0 3 * *', 'expected exactly 5 fields, found 4: [0 3 * *]'],
    ['0 0 3 * * *', 'expected exactly 5 fields, found 6: [0 0 3 * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['5-2 * * * *', 'beginning of range (5) beyond end of range (2): 5-2'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'too many slashes: */2/3'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['@every soon', 'failed to parse duration @every soon: time: invalid duration "soon"'],
    ['TZ=Mars/Olympus 0 3 * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
  ])('%j is refused with the parser message', (schedule, message) => {
    expect(cronScheduleError(schedule)).toBe(message);
  });
});
