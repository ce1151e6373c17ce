import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { rawRequest } from '../harness/raw-http';

/**
 * Load shedding and slow or abusive connections (issue 10, item 8): in-flight limits answer 429,
 * and neither a slowloris nor a connection flood locks legitimate clients out.
 */

let server: ServerProcess & { port: number };

beforeAll(async () => {
  server = await startServerProcess([
    '--max-requests-inflight=2',
    '--max-mutating-requests-inflight=1',
    '--max-connections=300',
    '--request-timeout=3s',
    '--min-request-timeout=2',
  ]);
});

afterAll(async () => {
  await server.stop();
});

afterEach(() => {
  expect(server.child.exitCode).toBeNull();
});

/** One request on a connection of its own; resolves with the status code, or the error's text. */
function oneShot(
  port: number,
  path: string,
  method = 'GET',
  body?: string,
): Promise<{ code: number | string; ms: number; headers: Record<string, unknown>; body: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, agent: false, timeout: 15_000, headers: body ? { 'Content-Type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, ms: Date.now() - started, headers: res.headers, body: text }));
        res.on('error', (err) => resolve({ code: err.message, ms: Date.now() - started, headers: {}, body: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', (err) => resolve({ code: (err as NodeJS.ErrnoException).code ?? err.message, ms: Date.now() - started, headers: {}, body: '' }));
    req.end(body);
  });
}

/** A create whose body stops half way: it holds a mutating slot until the socket goes. */
function stalledCreate(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(
    'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"metadata":',
  );
  return socket;
}

test('past --max-mutating-requests-inflight a write gets 429 with Retry-After: 1; reads, watches and probes are not held up', async () => {
  const holder = stalledCreate(server.port);
  await new Promise((r) => setTimeout(r, 300));
  const refused = await oneShot(server.port, '/api/v1/namespaces/default/configmaps', 'POST', JSON.stringify({ metadata: { name: 'shed' } }));
  expect(refused.code).toBe(429);
  expect(refused.headers['retry-after']).toBe('1');
  expect(JSON.parse(refused.body)).toMatchObject({
    kind: 'Status',
    reason: 'TooManyRequests',
    code: 429,
    message: 'Too many requests, please try again later.',
    details: { retryAfterSeconds: 1 },
  });

  expect((await oneShot(server.port, '/api/v1/namespaces/default/configmaps')).code).toBe(200);
  expect((await oneShot(server.port, '/livez')).code).toBe(200);
  // Watches are long-running: more of them than the read limit all start.
  const watches = await Promise.all(
    [1, 2, 3].map(() => rawRequest(server.port, 'GET /api/v1/namespaces?watch=1&timeoutSeconds=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', { lingerMs: 100 })),
  );
  expect(watches.map((w) => [w.code, w.complete])).toEqual([
    [200, true],
    [200, true],
    [200, true],
  ]);

  holder.destroy();
  await new Promise((r) => setTimeout(r, 300));
  const accepted = await oneShot(server.port, '/api/v1/namespaces/default/configmaps', 'POST', JSON.stringify({ metadata: { name: 'shed' } }));
  expect(accepted.code).toBe(201);
});

test('--request-timeout ends a stalled request with 504; --min-request-timeout ends a watch cleanly after 1-2 times it', async () => {
  const started = Date.now();
  const head =
    'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"metadata":';
  const stalled = await rawRequest(server.port, head, { lingerMs: 1000 });
  const stalledMs = Date.now() - started;
  expect(stalled.code).toBe(504);
  expect(JSON.parse(stalled.body)).toMatchObject({ kind: 'Status', reason: 'Timeout', code: 504 });
  expect(stalledMs).toBeGreaterThanOrEqual(2900);
  expect(stalledMs).toBeLessThan(5000);

  const watchStarted = Date.now();
  const watch = await rawRequest(server.port, 'GET /api/v1/namespaces?watch=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', { timeoutMs: 8000, lingerMs: 100 });
  const watchMs = Date.now() - watchStarted;
  expect(watch.code).toBe(200);
  expect(watch.complete).toBe(true);
  expect(watch.body).toContain('"type":"ADDED"');
  expect(watchMs).toBeGreaterThanOrEqual(1900);
  expect(watchMs).toBeLessThan(4500 + 1000);
});

test('a slowloris and a connection flood past --max-connections do not lock out legitimate clients', async () => {
  const FLOOD = 1500;
  const sockets = new Set<Socket>();
  let opened = 0;
  let running = true;
  // Half the flood trickles header bytes, half sends nothing; a closed one is replaced, up to FLOOD in all.
  const open = (): void => {
    if (!running || opened >= FLOOD) return;
    opened++;
    const socket = connect(server.port, '127.0.0.1');
    const trickle = opened % 2 === 0;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      setTimeout(open, 10);
    });
    if (trickle) {
      socket.write('GET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      const timer = setInterval(() => (socket.writable ? socket.write('a') : clearInterval(timer)), 500);
      socket.on('close', () => clearInterval(timer));
    }
  };
  for (let i = 0; i < 600; i++) open();

  const results: { code: number | string; ms: number }[] = [];
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    results.push(await oneShot(server.port, '/api/v1/namespaces?limit=1'));
    await new Promise((r) => setTimeout(r, 50));
  }
  running = false;
  const failed = results.filter((r) => r.code !== 200);
  const longestMs = Math.max(...results.map((r) => r.ms));
  for (const s of sockets) s.destroy();
  process.stdout.write(`flood: ${opened} sockets opened, ${results.length} legitimate requests, ${failed.length} failed, longest ${longestMs} ms\n`);
  expect(opened).toBeGreaterThan(300);
  expect(failed).toEqual([]);
  expect(longestMs).toBeLessThan(2000);
});

test('a connection trickling its headers is closed after the 32 s header timeout', async () => {
  const socket = connect(server.port, '127.0.0.1');
  socket.on('error', () => undefined);
  let closedAt = 0;
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString()));
  socket.on('close', () => (closedAt = Date.now()));
  const started = Date.now();
  socket.write('GET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
  const timer = setInterval(() => socket.writable && socket.write('a'), 1000);
  while (!closedAt && Date.now() - started < 40_000) await new Promise((r) => setTimeout(r, 200));
  clearInterval(timer);
  socket.destroy();
  process.stdout.write(`slowloris: held ${closedAt - started} ms\n`);
  expect(closedAt).toBeGreaterThan(0);
  expect(closedAt - started).toBeGreaterThanOrEqual(31_000);
  expect(closedAt - started).toBeLessThan(35_000);
  expect(answer).toMatch(/^HTTP\/1.1 408 /);
  expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ kind: 'Status', code: 408 });
}, 45_000);
