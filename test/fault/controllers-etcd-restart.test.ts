import { startEtcdCluster, type EtcdCluster } from '../harness/etcd-cluster';
import { createEstablished, eventually, simpleCrd } from '../harness/crds';
import { Api } from '../harness/http';
import { startServerProcess, type ServerProcess } from '../harness/process';

/**
 * Issue 10 item 5: controllers outlive an etcd restart. etcd is killed outright under a running kapi
 * and started again on its data; without restarting kapi, a namespace deletion then completes, a
 * new CRD is Established and served, and /readyz said what was true throughout.
 */

let etcd: EtcdCluster;
let kapi: ServerProcess;
let api: Api;

beforeAll(async () => {
  etcd = await startEtcdCluster({ size: 1 });
  kapi = await startServerProcess([`--etcd-servers=${etcd.endpoints[0]}`]);
  api = new Api(kapi.url);
}, 60_000);

afterAll(async () => {
  await kapi?.stop();
  await etcd?.stop();
});

const readyz = async (): Promise<{ status: number; text: string }> => {
  try {
    const res = await api.get('/readyz?verbose');
    return { status: res.status, text: res.text };
  } catch (err) {
    return { status: 0, text: String(err) };
  }
};

test('after etcd is killed and restarted, namespace deletion and new CRDs work again without restarting kapi', async () => {
  expect((await api.post('/api/v1/namespaces', { metadata: { name: 'doomed' } })).status).toBe(201);
  expect((await api.post('/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'inside' } })).status).toBe(201);
  await createEstablished(api, simpleCrd('before.example.com', 'gadgets', 'Gadget'));
  const healthy = await readyz();
  expect(healthy.status).toBe(200);
  expect(healthy.text).toContain('[+]namespace-controller ok');

  await etcd.kill(0);
  // While etcd is away, /readyz says so.
  const down = await eventually(
    'readyz to fail',
    async () => {
      const r = await readyz();
      return r.status === 500 ? r : undefined;
    },
    15_000,
  );
  expect(down.text).toContain('[-]etcd failed');
  await new Promise((r) => setTimeout(r, 3000));

  const restarted = Date.now();
  await etcd.restart(0);
  await eventually('readyz to pass again', async () => ((await readyz()).status === 200 ? true : undefined), 40_000);
  const readyAfterMs = Date.now() - restarted;

  // A write after the restart moves the revision past what the controllers' watches saw.
  expect((await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-restart' } })).status).toBe(201);
  expect((await api.delete('/api/v1/namespaces/doomed')).status).toBe(200);
  await eventually('namespace doomed to be gone', async () => ((await api.get('/api/v1/namespaces/doomed')).status === 404 ? true : undefined), 30_000);
  const deletedAfterMs = Date.now() - restarted;

  const establishMs = await createEstablished(api, simpleCrd('after.example.com', 'widgets', 'Widget'), 30_000);
  const widget = await api.post('/apis/after.example.com/v1/namespaces/default/widgets', {
    apiVersion: 'after.example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w1' },
  });
  expect(widget.status).toBe(201);
  expect((await api.get('/apis/after.example.com/v1/namespaces/default/widgets/w1')).status).toBe(200);
  // The authorizer's RBAC view follows again: a binding made after the restart grants at once.
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'after-restart', namespace: 'default' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'late' }],
  };
  expect((await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', binding)).status).toBe(201);
  await eventually(
    'the new binding to take effect',
    async () => ((await api.get('/api/v1/namespaces/default/configmaps', { headers: { 'Impersonate-User': 'late' } })).status === 200 ? true : undefined),
    10_000,
  );
  const final = await readyz();
  expect(final.status).toBe(200);
  for (const check of [
    'namespace-controller',
    'garbage-collector-controller',
    'clusterrole-aggregation-controller',
    'poststarthook/start-apiextensions-controllers',
    'leaderElection',
  ]) {
    expect(final.text).toContain(`[+]${check} ok`);
  }
  console.log(
    `etcd restart: /readyz green ${readyAfterMs} ms after etcd restarted; namespace deleted ${deletedAfterMs} ms after; new CRD Established in ${establishMs} ms`,
  );
}, 120_000);
