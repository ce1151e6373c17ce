import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestEtcd, type TestEtcd } from '../harness/etcd';
import { Api } from '../harness/http';
import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';
import { openWatch } from '../harness/watch';

/**
 * Watches as real clients make them, against server processes on an etcd of this file's own (it is
 * compacted from outside, as etcdctl or another apiserver does, which is etcd-wide): from a compacted
 * resourceVersion with plain HTTP, client-node's Watch and kubectl, on the watch cache and on etcd
 * (and exact lists and chunks from before it); and over WebSocket (kube's HandleWS).
 */
let etcd: TestEtcd;
const tokenDir = mkdtempSync(path.join(tmpdir(), 'kapi-watch-tokens-'));
const tokenFile = path.join(tokenDir, 'tokens.csv');
writeFileSync(tokenFile, 'watcher-token,watcher,1,"system:masters"\nnobody-token,nobody,2,""\n');

const b64 = (s: string): string => Buffer.from(s).toString('base64');

async function etcdCall(p: string, body: unknown): Promise<any> {
  const res = await fetch(`${etcd.endpoint}${p}`, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  return res.json();
}

/** Compacts etcd's whole history up to its current revision, as etcdctl compact does. */
async function compactEtcd(): Promise<void> {
  const range = await etcdCall('/v3/kv/range', { key: b64('/') });
  await etcdCall('/v3/kv/compaction', { revision: Number(range.header.revision), physical: true });
}

function runFlow(args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'watch-flow.mjs'), ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`watch flow failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

/** The watch cache's server, with static tokens for the WebSocket clients. */
let kapi: ServerProcess;
let api: Api;

beforeAll(async () => {
  etcd = await startTestEtcd();
  // Revisions before any server starts: resourceVersion 1 is older than every watch cache's window.
  for (let i = 0; i < 3; i++) await etcdCall('/v3/kv/put', { key: b64(`/elsewhere/${i}`), value: b64('x') });
  kapi = await startServerProcess([`--token-auth-file=${tokenFile}`], { etcdServers: etcd.endpoint });
  api = new Api(kapi.url);
}, 90_000);

afterAll(async () => {
  await kapi?.stop();
  await etcd?.stop();
  rmSync(tokenDir, { recursive: true, force: true });
});

const WATCH_TOO_OLD = 'The resourceVersion for the provided watch is too old.';

/** Writes, compacts etcd from outside, then watches from before the compaction with each client. */
async function watchFromCompacted(server: ServerProcess, watchCache: boolean): Promise<void> {
  const client = new Api(server.url);
  const ns = watchCache ? 'compacted-cache' : 'compacted-etcd';
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  expect((await client.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  const first = await client.post(cms, { metadata: { generateName: 'before-' } });
  expect(first.status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await client.post(cms, { metadata: { generateName: 'before-' } })).status).toBe(201);
  await compactEtcd();

  // Older than the cache's window: kube's cacher names the oldest version it holds (getAllEventsSinceLocked);
  // etcd itself answers as kube's etcd3 watcher does.
  const tooOld = watchCache ? expect.stringMatching(/^too old resource version: 1 \(\d+\)$/) : WATCH_TOO_OLD;
  const expired = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: tooOld } };
  const plain = await openWatch(`${server.url}${cms}?watch=1&resourceVersion=1`);
  try {
    expect(plain.status).toBe(200);
    expect(await plain.next()).toMatchObject(expired);
    await expect(plain.next(5000)).rejects.toThrow('watch stream ended');
  } finally {
    plain.close();
  }

  // Within the window but compacted in etcd: etcd answers (docs/divergences.md).
  const inWindow = await openWatch(`${server.url}${cms}?watch=1&resourceVersion=${first.body.metadata.resourceVersion}`);
  try {
    expect(await inWindow.next()).toMatchObject({ ...expired, object: { ...expired.object, message: WATCH_TOO_OLD } });
  } finally {
    inWindow.close();
  }

  const viaClientNode = await runFlow(['client-node', server.url, cms, '1']);
  expect(viaClientNode).toMatchObject({ events: [expired], ended: 'done' });

  const viaKubectl = await kubectl(server.url, ['get', '--raw', `${cms}?watch=1&resourceVersion=1`]);
  expect(viaKubectl.code).toBe(0);
  expect(JSON.parse(viaKubectl.stdout)).toMatchObject(expired);
}

/** An exact list at a compacted revision is 410; a chunk of a list from before it continues at the latest. */
async function listFromCompacted(server: ServerProcess, ns: string): Promise<void> {
  const client = new Api(server.url);
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const first = await client.post(cms, { metadata: { name: 'listed-0' } });
  for (let i = 1; i < 3; i++) expect((await client.post(cms, { metadata: { name: `listed-${i}` } })).status).toBe(201);
  const page = await client.get(`${cms}?limit=1`);
  expect(page.status).toBe(200);
  await client.post(cms, { metadata: { name: 'listed-3' } });
  await compactEtcd();

  const exact = await client.get(`${cms}?resourceVersion=${first.body.metadata.resourceVersion}&resourceVersionMatch=Exact`);
  expect(exact.status).toBe(410);
  expect(exact.body).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'Expired',
    code: 410,
    message: 'The resourceVersion for the provided list is too old.',
  });
  const next = await client.get(`${cms}?limit=1&continue=${encodeURIComponent(page.body.metadata.continue)}`);
  expect(next.status).toBe(410);
  expect(next.body).toMatchObject({ reason: 'Expired', code: 410 });
  expect(next.body.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\. You can start a new list/);
  expect(typeof next.body.metadata.continue).toBe('string');
}

describe('a watch from a compacted resourceVersion is one ERROR 410 Expired in a 200 stream (plain HTTP, client-node, kubectl)', () => {
  test('served by the watch cache; an exact list or a chunk from before it is 410 too', async () => {
    await watchFromCompacted(kapi, true);
    await listFromCompacted(kapi, 'compacted-cache');
  });

  test('served by etcd (--watch-cache=false); an exact list or a chunk from before it is 410 too', async () => {
    const uncached = await startServerProcess(['--watch-cache=false'], { etcdServers: etcd.endpoint });
    try {
      await watchFromCompacted(uncached, false);
      await listFromCompacted(uncached, 'compacted-etcd');
    } finally {
      await uncached.stop();
    }
  }, 120_000);
});

describe('a watch over WebSocket (HandleWS)', () => {
  const cms = '/api/v1/namespaces/ws/configmaps';
  const asWatcher = { headers: { Authorization: 'Bearer watcher-token' }, origin: 'https://ui.example' };

  beforeAll(async () => {
    expect((await api.post('/api/v1/namespaces', { metadata: { name: 'ws' } })).status).toBe(201);
    // The root CA publisher adds its ConfigMap to a new namespace; the watches below expect only their own events.
    const deadline = Date.now() + 20_000;
    while ((await api.get(`${cms}/kube-root-ca.crt`)).status !== 200) {
      if (Date.now() > deadline) throw new Error('kube-root-ca.crt never appeared');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  const listVersion = async (): Promise<string> => (await api.get(cms)).body.metadata.resourceVersion;

  test('over TLS with a bearer token: one text message per event, ADDED, MODIFIED, DELETED, then a normal close', async () => {
    const rv = await listVersion();
    const writes = [
      { url: `${kapi.url}${cms}`, method: 'POST', body: JSON.stringify({ metadata: { name: 'live' }, data: { v: '1' } }) },
      { url: `${kapi.url}${cms}/live`, method: 'PUT', body: JSON.stringify({ metadata: { name: 'live' }, data: { v: '2' } }) },
      { url: `${kapi.url}${cms}/live`, method: 'DELETE' },
    ];
    const report = await runFlow([
      'websocket',
      `${kapi.secureUrl.replace('https', 'wss')}${cms}?watch=1&resourceVersion=${rv}`,
      JSON.stringify({ ...asWatcher, protocols: ['binary.k8s.io'], expect: 3 }),
      JSON.stringify(writes),
    ]);
    expect(report).toMatchObject({ status: 101, protocol: 'binary.k8s.io', closeCode: 1000 });
    expect(report.messages.map((m: any) => [m.text.type, m.text.object.metadata.name, m.text.object.data?.v, m.newline])).toEqual([
      ['ADDED', 'live', '1', true],
      ['MODIFIED', 'live', '2', true],
      ['DELETED', 'live', '2', true],
    ]);
  });

  test('Protobuf events are binary messages: the WatchEvent without the HTTP stream length prefix', async () => {
    const rv = await listVersion();
    const report = await runFlow([
      'websocket',
      `${kapi.secureUrl.replace('https', 'wss')}${cms}?watch=1&resourceVersion=${rv}`,
      JSON.stringify({ ...asWatcher, headers: { ...asWatcher.headers, Accept: 'application/vnd.kubernetes.protobuf' }, expect: 1 }),
      JSON.stringify([{ url: `${kapi.url}${cms}`, method: 'POST', body: JSON.stringify({ metadata: { name: 'binary' } }) }]),
    ]);
    expect(report.status).toBe(101);
    // WatchEvent field 1 (type), length-delimited: 0x0a.
    expect(report.messages).toEqual([{ binary: expect.any(Number), first: 0x0a }]);
  });

  test('the watch timeout ends the socket with a normal close', async () => {
    const report = await runFlow([
      'websocket',
      `${kapi.secureUrl.replace('https', 'wss')}${cms}?watch=1&resourceVersion=${await listVersion()}&timeoutSeconds=1`,
      JSON.stringify(asWatcher),
    ]);
    expect(report).toMatchObject({ status: 101, messages: [], closeCode: 1000 });
  });

  test('a user without watch rights gets 403 before any upgrade; a client without an Origin is refused as x/net/websocket refuses it', async () => {
    const url = `${kapi.secureUrl.replace('https', 'wss')}${cms}?watch=1`;
    const forbidden = await runFlow(['websocket', url, JSON.stringify({ headers: { Authorization: 'Bearer nobody-token' }, origin: 'https://ui.example' })]);
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.body)).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'configmaps is forbidden: User "nobody" cannot watch resource "configmaps" in API group "" in the namespace "ws"',
    });
    const noOrigin = await runFlow(['websocket', url, JSON.stringify({ headers: asWatcher.headers })]);
    expect(noOrigin).toMatchObject({ status: 403, body: '' });
    const twoProtocols = await runFlow(['websocket', url, JSON.stringify({ ...asWatcher, protocols: ['a.k8s.io', 'b.k8s.io'] })]);
    expect(twoProtocols).toMatchObject({ status: 400, body: '' });
  });
});
