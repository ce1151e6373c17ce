import { eventually, RawEtcd } from '../harness/etcd-keys';
import { storedObject } from '../harness/stored-object';
import { Api } from '../harness/http';
import { kubectl, startServerProcess, WITHOUT_WORKLOAD_CONTROLLERS_FLAG } from '../harness/process';

let kapi: Awaited<ReturnType<typeof startServerProcess>>;
let api: Api;
let etcd: RawEtcd;
const k = (...args: string[]) => kubectl(kapi.url, args);
const labels = { app: 'web' };
const podSpec = { containers: [{ name: 'c', image: 'nginx' }] };

beforeAll(async () => {
  kapi = await startServerProcess([WITHOUT_WORKLOAD_CONTROLLERS_FLAG]);
  api = new Api(kapi.url);
  etcd = new RawEtcd();
});

afterAll(async () => {
  await kapi.stop();
  etcd.close();
});

/** deployment -> replicaset -> two pods, each reference blocking its owner's deletion. */
async function chain(ns: string): Promise<void> {
  expect((await api.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  const ref = (o: any) => [{ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, controller: true, blockOwnerDeletion: true }];
  const deploy = (
    await api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
    })
  ).body;
  const rs = (
    await api.post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
      metadata: { name: 'web-1', labels, ownerReferences: ref(deploy) },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
    })
  ).body;
  for (const name of ['web-1-a', 'web-1-b']) {
    expect((await api.post(`/api/v1/namespaces/${ns}/pods`, { metadata: { name, labels, ownerReferences: ref(rs) }, spec: podSpec })).status).toBe(201);
  }
}

const objectKeys = async (ns: string) =>
  (await etcd.namespaceKeys(kapi.prefix, ns)).map((key) => key.slice(kapi.prefix.length)).filter((key) => /^\/(deployments|replicasets|pods)\//.test(key));

test('the garbage collector resumes from etcd after a restart in the middle of deletions', async () => {
  await chain('gc-fg');
  await chain('gc-bg');
  await kapi.stop();
  // While kapi is down: one deployment was being deleted in the foreground, the other one is gone.
  const fgKey = `${kapi.prefix}/deployments/gc-fg/web`;
  const marked = (await storedObject(etcd, fgKey))!;
  marked.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  marked.metadata.deletionGracePeriodSeconds = 0;
  marked.metadata.finalizers = ['foregroundDeletion'];
  await etcd.put(fgKey, JSON.stringify(marked));
  await etcd.delete(`${kapi.prefix}/deployments/gc-bg/web`);
  kapi = await startServerProcess([WITHOUT_WORKLOAD_CONTROLLERS_FLAG], { port: kapi.port, prefix: kapi.prefix });
  api = new Api(kapi.url);
  for (const ns of ['gc-fg', 'gc-bg']) {
    await eventually(`the chain in ${ns} to be collected`, async () => ((await objectKeys(ns)).length === 0 ? true : undefined));
    expect((await api.delete(`/api/v1/namespaces/${ns}`)).status).toBe(200);
  }
  for (const ns of ['gc-fg', 'gc-bg']) {
    await eventually(`${ns} to go`, async () => ((await etcd.namespaceKeys(kapi.prefix, ns)).length === 0 ? true : undefined));
  }
});

test('kubectl: cascading deletes, delete by label, and a namespace deletion that waits for its content', async () => {
  await chain('kc');
  const orphan = await k('delete', 'deployment', 'web', '-n', 'kc', '--cascade=orphan');
  expect(orphan.stdout.trim()).toBe('deployment.apps "web" deleted');
  await eventually('the replicaset to be orphaned', async () => {
    const rs = JSON.parse((await k('get', 'replicaset', 'web-1', '-n', 'kc', '-o', 'json')).stdout);
    return rs.metadata.ownerReferences ? undefined : true;
  });
  expect(await objectKeys('kc')).toEqual(['/pods/kc/web-1-a', '/pods/kc/web-1-b', '/replicasets/kc/web-1']);
  const fg = await k('delete', 'replicaset', 'web-1', '-n', 'kc', '--cascade=foreground');
  expect(fg.code).toBe(0);
  await eventually('the replicaset and its pods to go', async () => ((await objectKeys('kc')).length === 0 ? true : undefined));

  for (const [name, group] of [
    ['a', 'x'],
    ['b', 'x'],
    ['c', 'y'],
  ])
    await k('create', 'configmap', name, '-n', 'kc', `--from-literal=g=${group}`);
  await k('label', 'configmap', 'a', 'b', '-n', 'kc', 'group=x');
  const byLabel = await k('delete', 'configmap', '-n', 'kc', '-l', 'group=x');
  expect(byLabel.stdout.trim().split('\n').sort()).toEqual(['configmap "a" deleted', 'configmap "b" deleted']);
  expect((await k('get', 'configmap', '-n', 'kc', '--field-selector', 'metadata.name!=kube-root-ca.crt', '-o', 'name')).stdout.trim()).toBe('configmap/c');

  expect((await k('delete', 'namespace', 'default')).stderr.trim()).toBe(
    'Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted',
  );
  const gone = await k('delete', 'namespace', 'kc');
  expect(gone.stdout.trim()).toBe('namespace "kc" deleted');
  expect(await etcd.namespaceKeys(kapi.prefix, 'kc')).toEqual([]);
});
