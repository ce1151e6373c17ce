import { Api } from '../harness/http';
import { startTestEtcd, type TestEtcd } from '../harness/etcd';
import { startTestServer } from '../harness/server';
import { openWatch } from '../harness/watch';

/**
 * etcd compacted from outside kapi (as etcdctl or another apiserver does): a watch or an exact list
 * from before the compaction is answered 410 Expired, whether the watch cache or etcd serves the
 * resource. Compaction is etcd-wide, so this file has an etcd of its own.
 */
let etcd: TestEtcd;

beforeAll(async () => {
  etcd = await startTestEtcd();
}, 60_000);

afterAll(async () => {
  await etcd?.stop();
});

async function etcdCall(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${etcd.endpoint}${path}`, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  return res.json();
}

/** Compacts etcd's whole history up to its current revision, through etcd's own API. */
async function compactEtcd(): Promise<number> {
  const range = await etcdCall('/v3/kv/range', { key: Buffer.from('/').toString('base64') });
  const revision = Number(range.header.revision);
  await etcdCall('/v3/kv/compaction', { revision, physical: true });
  return revision;
}

const WATCH_EXPIRED = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 } };

describe.each([
  ['the watch cache', true],
  ['etcd (--watch-cache=false)', false],
])('a compacted resourceVersion, served by %s', (_path, watchCache) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let api: Api;
  const ns = `compacted-${watchCache ? 'cache' : 'etcd'}`;
  const cms = `/api/v1/namespaces/${ns}/configmaps`;

  beforeAll(async () => {
    server = await startTestServer({ etcdServers: [etcd.endpoint], watchCache });
    api = new Api(server.url);
    expect((await api.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
  });

  test('a watch from before the compaction gets one ERROR 410 Expired in a 200 stream; a watch from after it is served', async () => {
    const first = await api.post(cms, { metadata: { name: 'before-0' } });
    expect(first.status).toBe(201);
    const before = first.body.metadata.resourceVersion as string;
    for (let i = 1; i < 3; i++) expect((await api.post(cms, { metadata: { name: `before-${i}` } })).status).toBe(201);
    const compactedAt = await compactEtcd();

    for (const rv of [before, '1']) {
      const watch = await openWatch(`${server.url}${cms}?watch=1&resourceVersion=${rv}`);
      try {
        expect(watch.status).toBe(200);
        const event = await watch.next();
        expect(event).toMatchObject(WATCH_EXPIRED);
        expect(event.object.message).toBe('The resourceVersion for the provided watch is too old.');
        await expect(watch.next(5000)).rejects.toThrow('watch stream ended');
      } finally {
        watch.close();
      }
    }

    // History from the compaction on is still there: such a watch streams what follows.
    const live = await openWatch(`${server.url}${cms}?watch=1&resourceVersion=${compactedAt}`);
    try {
      expect(live.status).toBe(200);
      const created = await api.post(cms, { metadata: { name: 'after' } });
      expect(await live.next()).toMatchObject({
        type: 'ADDED',
        object: { metadata: { name: 'after', resourceVersion: created.body.metadata.resourceVersion } },
      });
    } finally {
      live.close();
    }
  });

  test('an exact list at a compacted resourceVersion is 410 Expired; a chunk of one continues at the latest', async () => {
    const first = await api.post(cms, { metadata: { name: 'listed-0' } });
    for (let i = 1; i < 3; i++) expect((await api.post(cms, { metadata: { name: `listed-${i}` } })).status).toBe(201);
    const page = await api.get(`${cms}?limit=1`);
    expect(page.status).toBe(200);
    await api.post(cms, { metadata: { name: 'listed-3' } });
    await compactEtcd();

    const exact = await api.get(`${cms}?resourceVersion=${first.body.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
      message: 'The resourceVersion for the provided list is too old.',
    });

    const next = await api.get(`${cms}?limit=1&continue=${encodeURIComponent(page.body.metadata.continue)}`);
    expect(next.status).toBe(410);
    expect(next.body).toMatchObject({ reason: 'Expired', code: 410 });
    expect(next.body.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\. You can start a new list/);
    expect(typeof next.body.metadata.continue).toBe('string');
  });
});
