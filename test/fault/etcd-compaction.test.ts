import { startEtcdCluster, type EtcdCluster } from '../harness/etcd-cluster';
import { configMap, postJson, timed, timeUntil, WatchRecorder } from '../harness/fault-load';
import { startServerProcess, type ServerProcess } from '../harness/process';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

async function etcdPost(endpoint: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${endpoint}${path}`, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  return res.json();
}

/**
 * The one etcd fault that forces a re-list: the revision kapi's etcd watch must resume from was
 * compacted while it was away. kapi re-lists (seeing what changed meanwhile), ends its client
 * watches cleanly, and a client resuming from before the re-list gets 410 Expired, as in kube.
 */
describe('an etcd watch that cannot resume because its revision was compacted', () => {
  let etcd: EtcdCluster;
  let kapi: ServerProcess & { prefix: string };
  const ns = 'compaction';

  beforeAll(async () => {
    etcd = await startEtcdCluster({ size: 1 });
    kapi = await startServerProcess([`--etcd-servers=${etcd.endpoints[0]}`]);
    expect((await timed('ns', `${kapi.url}/api/v1/namespaces`, postJson({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }))).status).toBe(201);
  });
  afterAll(async () => {
    if (kapi?.child.exitCode === null) kapi.child.kill('SIGCONT');
    await kapi?.stop();
    await etcd?.stop();
  });

  it('re-lists, ends client watches cleanly, and answers a stale resume with 410', async () => {
    const cms = `${kapi.url}/api/v1/namespaces/${ns}/configmaps`;
    const first = await timed('create', cms, postJson(configMap('before')));
    expect(first.status).toBe(201);
    const staleRv = first.body.metadata.resourceVersion as string;
    const watch = await WatchRecorder.open(`${cms}?watch=1&resourceVersion=${staleRv}`);

    // kapi is frozen while its etcd goes away and comes back with history it never saw, compacted.
    kapi.child.kill('SIGSTOP');
    try {
      await etcd.kill(0);
      await etcd.restart(0);
      const key = `${kapi.prefix}/configmaps/${ns}/written-meanwhile`;
      const value = JSON.stringify({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name: 'written-meanwhile', namespace: ns, uid: 'c0ffee00-0000-4000-8000-000000000001', creationTimestamp: '2026-01-01T00:00:00Z' },
        data: { k: 'v' },
      });
      // Written twice, so the compaction removes the revision kapi must resume from.
      await etcdPost(etcd.endpoints[0], '/v3/kv/put', { key: b64(key), value: b64(value) });
      const put = await etcdPost(etcd.endpoints[0], '/v3/kv/put', { key: b64(key), value: b64(value) });
      await etcdPost(etcd.endpoints[0], '/v3/kv/compaction', { revision: put.header.revision, physical: true });
    } finally {
      kapi.child.kill('SIGCONT');
    }

    const relistMs = await timeUntil(async () => {
      const list = await timed('list', `${cms}?resourceVersion=0`);
      return list.status === 200 && list.body.items.some((i: any) => i.metadata.name === 'written-meanwhile');
    }, 30_000);
    console.log(`compacted etcd watch: kapi re-listed ${relistMs} ms after it was resumed`);
    await timeUntil(async () => watch.state !== 'open', 10_000);
    expect(watch.state).toBe('clean');

    const stale = await timed('watch', `${cms}?watch=1&resourceVersion=${staleRv}&timeoutSeconds=1`);
    // One ERROR event in a 200 stream, as kube-apiserver's cacher answers a too old resourceVersion.
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  });
});
