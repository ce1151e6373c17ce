import { startServerProcess } from '../harness/process';

/** The lines of the server's output that are its access lines ("HTTP"). */
const accessLines = (output: string, format: 'text' | 'json'): string[] =>
  output.split('\n').filter((line) => (format === 'json' ? line.includes('"msg":"HTTP"') : line.includes('] "HTTP" ')));

async function requestAndStop(args: string[]): Promise<{ auditId: string; output: string }> {
  const kapi = await startServerProcess(args);
  const res = await fetch(`${kapi.url}/api/v1/namespaces?limit=1`, { headers: { 'User-Agent': 'logging-test/1.0' } });
  expect(res.status).toBe(200);
  const auditId = res.headers.get('Audit-Id') ?? '';
  expect(auditId).toMatch(/^[0-9a-f-]{36}$/);
  expect(await kapi.stop()).toBe(0);
  return { auditId, output: kapi.output() };
}

test('-v=3 --logging-format=json writes one JSON access line per request, carrying the audit id', async () => {
  const { auditId, output } = await requestAndStop(['-v=3', '--logging-format=json']);
  const lines = output.split('\n').filter(Boolean);
  for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  const mine = accessLines(output, 'json')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['audit-ID'] === auditId);
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({
    v: 3,
    msg: 'HTTP',
    verb: 'LIST',
    URI: '/api/v1/namespaces?limit=1',
    userAgent: 'logging-test/1.0',
    resp: 200,
  });
  expect(typeof mine[0].ts).toBe('number');
  expect(mine[0].latency).toMatch(/^[0-9.]+(ns|µs|ms|s)$/);
  expect(mine[0].srcIP).toMatch(/^127\.0\.0\.1:\d+$/);
});

test('text format at -v 3 writes klog lines; at the default verbosity no access lines', async () => {
  const text = await requestAndStop(['--v', '3']);
  const mine = accessLines(text.output, 'text').filter((l) => l.includes(`audit-ID="${text.auditId}"`));
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatch(
    /^I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+\] "HTTP" verb="LIST" URI="\/api\/v1\/namespaces\?limit=1" latency="[^"]+" userAgent="logging-test\/1.0" audit-ID="[0-9a-f-]{36}" srcIP="127\.0\.0\.1:\d+" resp=200$/,
  );
  expect(text.output).toMatch(/^I\d{4} [\d:.]+ +\d+\] kapi serving insecurely on http:\/\/127\.0\.0\.1:\d+$/m);

  const quiet = await requestAndStop([]);
  expect(accessLines(quiet.output, 'text')).toEqual([]);
  expect(quiet.output).toContain('kapi serving insecurely on');
});
