import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { Api } from '../harness/http';
import { startServerProcess } from '../harness/process';

/**
 * The kapi process killed (-9) or terminated (SIGTERM) under concurrent writes and watches:
 * acknowledged writes survive, exactly once; a graceful shutdown resets nothing in flight.
 */

interface Outcome {
  code: number | string;
}

/** A create on a connection of its own, so that no keep-alive reuse races the shutdown. */
function create(port: number, ns: string, body: unknown): Promise<Outcome & { name?: string }> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: `/api/v1/namespaces/${ns}/configmaps`, method: 'POST', agent: false, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, name: res.statusCode === 201 ? JSON.parse(text).metadata.name : undefined }));
        res.on('error', (err) => resolve({ code: `response: ${err.message}` }));
      },
    );
    req.on('error', (err) => resolve({ code: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end(JSON.stringify(body));
  });
}

async function names(url: string, ns: string): Promise<string[]> {
  const list = await new Api(url).get(`/api/v1/namespaces/${ns}/configmaps`);
  return list.body.items.map((cm: { metadata: { name: string } }) => cm.metadata.name);
}

test('kill -9 under concurrent writes: after a restart every acknowledged write is there, exactly once', async () => {
  const first = await startServerProcess();
  const started = Date.now();
  const acked: string[] = [];
  const failed: string[] = [];
  let seq = 0;
  let stop = false;
  const writer = async (): Promise<void> => {
    while (!stop) {
      const n = seq++;
      const res = await create(first.port, 'default', { metadata: { generateName: 'k9-' }, data: { seq: String(n) } });
      if (res.code === 201) acked.push(res.name!);
      else failed.push(String(res.code));
    }
  };
  const writers = Array.from({ length: 8 }, writer);
  while (acked.length < 100 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
  stop = true;
  const killed = Date.now();
  await first.stop('SIGKILL');
  await Promise.all(writers);

  const second = await startServerProcess([], { port: first.port, prefix: first.prefix });
  const recoveredMs = Date.now() - killed;
  try {
    const stored = await new Api(second.url).get('/api/v1/namespaces/default/configmaps');
    const items: { metadata: { name: string }; data: { seq: string } }[] = stored.body.items;
    const present = new Set(items.map((i) => i.metadata.name));
    const seqs = items.map((i) => i.data.seq);
    process.stdout.write(
      `kill -9: ${acked.length} writes acknowledged, ${items.length} stored, ${failed.length} cut by the kill, ready again ${recoveredMs} ms after it\n`,
    );
    expect(acked.length).toBeGreaterThanOrEqual(100);
    expect(acked.filter((name) => !present.has(name))).toEqual([]);
    expect(new Set(seqs).size).toBe(seqs.length);
    // Only the requests in flight at the kill may fail (one a writer), and only as a cut connection.
    expect(failed.length).toBeLessThanOrEqual(8);
    expect(failed.filter((code) => /^[0-9]+$/.test(code))).toEqual([]);
  } finally {
    await second.stop();
  }
});

test('SIGTERM under load: /readyz turns red, nothing in flight is reset, acknowledged writes are stored, watches end cleanly', async () => {
  const server = await startServerProcess(['--shutdown-delay-duration=1s']);
  const api = new Api(server.url);
  expect((await api.post('/api/v1/namespaces', { metadata: { name: 'drain' } })).status).toBe(201);

  // Two watches, which must see a clean end of stream.
  const watchEnds = [1, 2].map(
    () =>
      new Promise<string>((resolve) => {
        const req = request(
          { host: '127.0.0.1', port: server.port, path: '/api/v1/namespaces/drain/configmaps?watch=1', agent: false },
          (res: IncomingMessage) => {
            res.on('data', () => undefined);
            res.on('end', () => resolve(res.complete ? 'clean end' : 'cut'));
            res.on('error', (err) => resolve(`error: ${err.message}`));
          },
        );
        req.on('error', (err) => resolve(`error: ${err.message}`));
        req.end();
      }),
  );

  // Writers stop sending once /readyz is red, as a load balancer would; what they sent must be answered.
  let ready = true;
  const acked: string[] = [];
  const failures: string[] = [];
  let n = 0;
  const writer = async (): Promise<void> => {
    while (ready) {
      const res = await create(server.port, 'drain', { metadata: { name: `w-${n++}` } });
      if (res.code === 201) acked.push(res.name!);
      else failures.push(String(res.code));
    }
  };
  const writers = Array.from({ length: 6 }, writer);
  await new Promise((r) => setTimeout(r, 1000));

  // A create whose body is still coming when SIGTERM arrives, and is finished after the listener closed.
  const slow = connect(server.port, '127.0.0.1');
  let slowAnswer = '';
  slow.on('data', (c: Buffer) => (slowAnswer += c.toString()));
  slow.on('error', (err) => (slowAnswer += `error: ${err.message}`));
  const slowBody = JSON.stringify({ metadata: { name: 'slow' } });
  slow.write(
    `POST /api/v1/namespaces/drain/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${slowBody.length}\r\n\r\n${slowBody.slice(0, 10)}`,
  );
  await new Promise((r) => setTimeout(r, 200));

  const signalled = Date.now();
  const exited = server.stop('SIGTERM');
  let readyzRedAfterMs = -1;
  while (Date.now() - signalled < 900) {
    const res = await fetch(`${server.url}/readyz`).catch(() => null);
    if (res && res.status === 500) {
      expect(await res.text()).toContain('[-]shutdown failed');
      readyzRedAfterMs = Date.now() - signalled;
      break;
    }
  }
  ready = false;
  await Promise.all(writers);
  await new Promise((r) => setTimeout(r, 1200));
  // The listener is closed by now: new connections are refused...
  expect((await create(server.port, 'drain', { metadata: { name: 'late' } })).code).toBe('ECONNREFUSED');
  // ...but the request in flight is finished.
  slow.write(slowBody.slice(10));
  const code = await exited;
  const ends = await Promise.all(watchEnds);
  slow.destroy();

  process.stdout.write(
    `SIGTERM: /readyz red after ${readyzRedAfterMs} ms, ${acked.length} writes acknowledged, ${failures.length} failed, exit in ${Date.now() - signalled} ms\n`,
  );
  expect(readyzRedAfterMs).toBeGreaterThanOrEqual(0);
  expect(failures).toEqual([]);
  expect(slowAnswer).toMatch(/^HTTP\/1.1 201 /);
  expect(ends).toEqual(['clean end', 'clean end']);
  expect(code).toBe(0);

  const again = await startServerProcess([], { port: server.port, prefix: server.prefix });
  try {
    const stored = new Set(await names(again.url, 'drain'));
    expect(acked.filter((name) => !stored.has(name))).toEqual([]);
    expect(stored.has('slow')).toBe(true);
  } finally {
    await again.stop();
  }
});
