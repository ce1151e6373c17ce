import { parseFlags } from './config';
import { goDuration } from './access-log';
import { createLogger, leveled } from './logger';

function capture(format: 'text' | 'json', verbosity = 0): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, log: createLogger({ format, verbosity, stream: { write: (l: string) => lines.push(l) } }) };
}

test('the (message, err?) call still logs info and error lines', () => {
  const { lines, log } = capture('json');
  log('started');
  log('failed', new Error('boom'));
  expect(JSON.parse(lines[0])).toEqual({ ts: expect.any(Number), v: 0, msg: 'started' });
  expect(JSON.parse(lines[1])).toMatchObject({ msg: 'failed', err: expect.stringContaining('Error: boom') });
  expect(JSON.parse(lines[1])).not.toHaveProperty('v');
});

test('each line has its own time', async () => {
  const { lines, log } = capture('json');
  log('one');
  await new Promise((r) => setTimeout(r, 20));
  log('two');
  const [a, b] = lines.map((l) => (JSON.parse(l) as { ts: number }).ts);
  expect(b - a).toBeGreaterThanOrEqual(0.015);
  expect(Math.abs(b - Date.now() / 1000)).toBeLessThan(5);
});

test('V(n) lines appear only at verbosity n or more', () => {
  const { lines, log } = capture('text', 2);
  log.v(2, 'shown', { key: 'value', n: 3 });
  log.v(3, 'hidden');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+\] "shown" key="value" n=3\n$/);
  expect(log.enabled(2)).toBe(true);
  expect(log.enabled(3)).toBe(false);
});

test('text errors and warnings carry klog severity letters', () => {
  const { lines, log } = capture('text');
  log.warn('careful');
  log.error('broken', 'why');
  expect(lines[0]).toMatch(/^W\d{4} .*\] careful\n$/);
  expect(lines[1]).toMatch(/^E\d{4} .*\] "broken" err="why"\n$/);
});

test('a plain function is adapted to levels at verbosity 0', () => {
  const seen: string[] = [];
  const log = leveled((m, e) => seen.push(e === undefined ? m : `${m}: ${String(e)}`));
  log.info('a', { k: 1 });
  log.v(1, 'hidden');
  log.error('b', 'c');
  expect(seen).toEqual(['a k=1', 'b: c']);
});

test('-v, --v and --logging-format parse as kube-apiserver spells them', () => {
  expect(parseFlags(['-v=4'])).toMatchObject({ verbosity: 4 });
  expect(parseFlags(['-v', '2'])).toMatchObject({ verbosity: 2 });
  expect(parseFlags(['--v=10', '--logging-format=json'])).toMatchObject({ verbosity: 10, loggingFormat: 'json' });
  expect(() => parseFlags(['--v=11'])).toThrow('must be at most 10');
  expect(() => parseFlags(['--logging-format=xml'])).toThrow('must be text or json');
  expect(() => parseFlags(['-x'])).toThrow('unexpected argument: -x');
});

test('latency prints as a Go duration', () => {
  expect(goDuration(0.0012345)).toBe('1.2345ms');
  expect(goDuration(2.5)).toBe('2.5s');
  expect(goDuration(0.0000021)).toBe('2.1µs');
});
