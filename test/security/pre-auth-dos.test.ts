import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect as tcpConnect, type AddressInfo } from 'node:net';
import path from 'node:path';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { ClientHttp2Session } from 'node:http2';
import { http2Request, http2Session } from '../harness/http2-client';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { httpsRequest, type TlsOptions } from '../harness/tls';

/**
 * Denial of service before authentication (issue 20, item 8): what a client with no credentials
 * can hold of the secure port, against the built server with a small --max-connections.
 */

const MAX_CONNECTIONS = 6;
let server: ServerProcess;
let admin: TlsOptions;
let backend: Server;
let port: number;

beforeAll(async () => {
  server = await startServerProcess([`--max-connections=${MAX_CONNECTIONS}`], { insecure: false });
  port = Number(new URL(server.secureUrl).port);
  const kubeconfig = readFileSync(path.join(server.dataDir, 'admin.kubeconfig'), 'utf8');
  const field = (name: string) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kubeconfig)![1], 'base64').toString();
  admin = { ca: readFileSync(path.join(server.dataDir, 'pki', 'ca.crt'), 'utf8'), cert: field('client-certificate-data'), key: field('client-key-data') };
  // A WebSocket-ish backend that echoes whatever an upgraded connection sends.
  backend = createServer((_req, res) => res.end('not an upgrade'));
  backend.on('upgrade', (_req, socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const create = (target: string, body: unknown) => httpsRequest(`${server.secureUrl}${target}`, admin, { method: 'POST', body });
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo' }, spec: { ports: [{ name: 'ws', port: 80 }] } };
  expect((await create('/api/v1/namespaces/default/services', svc)).status).toBe(201);
  const endpoints = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'echo' },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'ws', port: (backend.address() as AddressInfo).port }] }],
  };
  expect((await create('/api/v1/namespaces/default/endpoints', endpoints)).status).toBe(201);
}, 60_000);

afterAll(async () => {
  backend?.close();
  await server?.stop();
});

/** Waits for `text` in what a socket receives (from now on). */
function received(socket: TLSSocket, text: string, timeoutMs = 5000): Promise<boolean> {
  return new Promise((resolve) => {
    let got = '';
    const onData = (chunk: Buffer) => {
      got += chunk.toString('latin1');
      if (got.includes(text)) finish(true);
    };
    const finish = (answer: boolean) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(answer);
    };
    const onClose = () => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

const handshake = (options: ConnectionOptions): Promise<TLSSocket> =>
  new Promise((resolve, reject) => {
    const socket = connect(options);
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', reject);
  });

test("a flood of idle unauthenticated connections at --max-connections closes idle ones, never a user's live upgraded session", async () => {
  const session = await handshake({ host: '127.0.0.1', port, ca: admin.ca, cert: admin.cert, key: admin.key });
  session.on('error', () => undefined);
  const upgraded = received(session, ' 101 ');
  session.write('GET /api/v1/namespaces/default/services/echo:80/proxy/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
  expect(await upgraded).toBe(true);

  const flood: TLSSocket[] = [];
  try {
    for (let i = 0; i < 3 * MAX_CONNECTIONS; i++) {
      const socket = await handshake({ host: '127.0.0.1', port, rejectUnauthorized: false });
      socket.on('error', () => undefined);
      flood.push(socket);
      // The server counts a connection once its handshake is done; let it see this one before the next.
      await new Promise((r) => setTimeout(r, 50));
    }
    // The server's closes reach this process a little later on a loaded machine: wait for them, a bounded while.
    const open = (): number => flood.filter((s) => !s.destroyed).length;
    for (let waited = 0; open() >= MAX_CONNECTIONS && waited < 3000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(open()).toBeLessThan(MAX_CONNECTIONS);
    const echoed = received(session, 'still here');
    session.write('still here');
    expect(await echoed).toBe(true);
  } finally {
    for (const socket of flood) socket.destroy();
    session.destroy();
  }
});

test('HTTP/2 sessions count as connections: a flood of idle unauthenticated sessions is closed for newcomers, never a session with a stream open', async () => {
  const session = await http2Session(server.secureUrl, admin);
  const target = '/api/v1/namespaces/default/configmaps';
  const list = await http2Request(session, target);
  const watch = session.request({ ':path': `${target}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}` });
  let events = '';
  watch.setEncoding('utf8');
  watch.on('data', (chunk: string) => (events += chunk));
  watch.on('error', () => undefined);
  const flood: ClientHttp2Session[] = [];
  try {
    for (let i = 0; i < 3 * MAX_CONNECTIONS; i++) {
      flood.push(await http2Session(server.secureUrl, { ca: admin.ca }));
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(flood.filter((s) => !s.destroyed && !s.closed).length).toBeLessThan(MAX_CONNECTIONS);
    const created = await httpsRequest(`${server.secureUrl}${target}`, admin, {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-h2-flood' } },
    });
    expect(created.status).toBe(201);
    const deadline = Date.now() + 10_000;
    while (!events.includes('after-h2-flood') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(events).toContain('after-h2-flood');
  } finally {
    for (const s of flood) s.destroy();
    session.destroy();
  }
});

test('a client that never completes its TLS handshake is dropped after 32 s, as Go bounds the handshake by ReadHeaderTimeout', async () => {
  const socket = tcpConnect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const started = Date.now();
  // Half a ClientHello's record header, then silence.
  socket.write(Buffer.from([0x16, 0x03, 0x01]));
  const closedAfter = await new Promise<number>((resolve) => {
    const timer = setTimeout(() => resolve(Infinity), 45_000);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
  socket.destroy();
  process.stdout.write(`stalled handshake: held ${closedAfter} ms\n`);
  expect(closedAfter).toBeGreaterThanOrEqual(31_000);
  expect(closedAfter).toBeLessThan(40_000);
}, 50_000);
