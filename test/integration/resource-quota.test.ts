import { Api } from '../harness/http';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { startTestServer } from '../harness/server';
import { uniquePrefix } from '../harness/shared-etcd';
import { createEstablished, eventually, simpleCrd } from '../harness/crds';

/**
 * ResourceQuota as kube-apiserver and kube-controller-manager enforce it: the controller fills
 * status.hard and status.used from the namespace's objects, admission refuses what would exceed a
 * quota with kube's 403 messages and charges status.used before the object is stored, dry runs are
 * checked without being charged, and deletions are given back by the controller.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

type Obj = Record<string, any>;

const pod = (name: string, resources: Obj = {}, spec: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx', resources }], ...spec },
});

const quota = (name: string, hard: Obj, spec: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...spec } });

async function namespace(name: string, on = api): Promise<void> {
  expect((await on.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).status).toBe(201);
}

/** Creates a quota and waits for the controller to count it: status.hard equal to spec.hard, status.used for every name. */
async function counted(ns: string, q: Obj, on = api): Promise<Obj> {
  expect((await on.post(`/api/v1/namespaces/${ns}/resourcequotas`, q)).status).toBe(201);
  return usedOf(ns, q.metadata.name, (used) => Object.keys(q.spec.hard).every((k) => k in used), on);
}

/** The quota once its status.used satisfies `ok`. */
async function usedOf(ns: string, name: string, ok: (used: Obj) => boolean, on = api): Promise<Obj> {
  return eventually(`quota ${ns}/${name} counted`, async () => {
    const q = (await on.get(`/api/v1/namespaces/${ns}/resourcequotas/${name}`)).body;
    return q.status?.used && ok(q.status.used) ? q : undefined;
  });
}

const create = (ns: string, resource: string, body: Obj, query = '') => api.post(`/api/v1/namespaces/${ns}/${resource}${query}`, body);

test('the controller sets status.hard from spec.hard and counts status.used from the objects already there', async () => {
  await namespace('rq-count');
  expect((await create('rq-count', 'pods', pod('a', { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } }))).status).toBe(
    201,
  );
  expect((await create('rq-count', 'pods', pod('b', { requests: { cpu: '0.5', memory: '64Mi' } }))).status).toBe(201);
  expect((await create('rq-count', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } })).status).toBe(201);
  const q = await counted(
    'rq-count',
    quota('q', {
      pods: '10',
      'count/configmaps': '5',
      configmaps: '5',
      'requests.cpu': '2',
      'requests.memory': '1Gi',
      'limits.cpu': '4',
      'count/deployments.apps': '3',
    }),
  );
  expect(q.status.hard).toEqual({
    pods: '10',
    'count/configmaps': '5',
    configmaps: '5',
    'requests.cpu': '2',
    'requests.memory': '1Gi',
    'limits.cpu': '4',
    'count/deployments.apps': '3',
  });
  // kube-root-ca.crt is a ConfigMap too, once the publisher made it.
  const configMaps = (await api.get('/api/v1/namespaces/rq-count/configmaps')).body.items.length;
  const settled = await usedOf('rq-count', 'q', (used) => used['count/configmaps'] === String(configMaps));
  expect(settled.status.used).toEqual({
    pods: '2',
    'count/configmaps': String(configMaps),
    configmaps: String(configMaps),
    'requests.cpu': '750m',
    'requests.memory': '128Mi',
    'limits.cpu': '500m',
    'count/deployments.apps': '0',
  });
});

test('a pod over the pods quota gets kube’s 403, and admission charges status.used itself', async () => {
  await namespace('rq-pods');
  await counted('rq-pods', quota('q', { pods: '2' }));
  for (const name of ['p1', 'p2']) expect((await create('rq-pods', 'pods', pod(name))).status).toBe(201);
  const charged = (await api.get('/api/v1/namespaces/rq-pods/resourcequotas/q')).body;
  expect(charged.status.used).toEqual({ pods: '2' });
  const res = await create('rq-pods', 'pods', pod('p3'));
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    reason: 'Forbidden',
    code: 403,
    message: 'pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2',
    details: { name: 'p3', kind: 'pods' },
  });
  // A generated name is reported as its prefix, as kube's admission.NewForbidden does.
  const generated = await create('rq-pods', 'pods', { ...pod(''), metadata: { generateName: 'web-' } });
  expect(generated.status).toBe(403);
  expect(generated.body.message).toMatch(/^pods "web-[a-z0-9]{5}" is forbidden: exceeded quota: q/);
});

test('compute quotas: containers must name what is limited, and the sums are printed as kube prints quantities', async () => {
  await namespace('rq-compute');
  await counted('rq-compute', quota('compute', { 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.memory': '2Gi' }));
  const bare = await create('rq-compute', 'pods', {
    ...pod('bare'),
    spec: { containers: [{ name: 'c', image: 'nginx' }], initContainers: [{ name: 'init', image: 'busybox' }] },
  });
  expect(bare.status).toBe(403);
  expect(bare.body.message).toBe(
    'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c,init; requests.cpu for: c,init; requests.memory for: c,init',
  );
  const sized = { requests: { cpu: '600m', memory: '512Mi' }, limits: { memory: '1Gi' } };
  expect((await create('rq-compute', 'pods', pod('one', sized))).status).toBe(201);
  const over = await create('rq-compute', 'pods', pod('two', sized));
  expect(over.status).toBe(403);
  expect(over.body.message).toBe(
    'pods "two" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
  );
  const fits = { requests: { cpu: '0.4', memory: '512Mi' }, limits: { memory: '1Gi' } };
  expect((await create('rq-compute', 'pods', pod('three', fits))).status).toBe(201);
  const q = (await api.get('/api/v1/namespaces/rq-compute/resourcequotas/compute')).body;
  expect(q.status.used).toEqual({ 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.memory': '2Gi' });
});

test('a dry run is checked against the quota but not charged', async () => {
  await namespace('rq-dry');
  await counted('rq-dry', quota('q', { pods: '1' }));
  const dry = await create('rq-dry', 'pods', pod('d'), '?dryRun=All');
  expect(dry.status).toBe(201);
  expect((await api.get('/api/v1/namespaces/rq-dry/resourcequotas/q')).body.status.used).toEqual({ pods: '0' });
  expect((await create('rq-dry', 'pods', pod('real'))).status).toBe(201);
  const refused = await create('rq-dry', 'pods', pod('d2'), '?dryRun=All');
  expect(refused.status).toBe(403);
  expect(refused.body.message).toBe('pods "d2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
});

test('deleting an object gives its usage back through the controller, and the freed unit can be used again', async () => {
  await namespace('rq-free');
  await counted('rq-free', quota('q', { 'count/secrets': '1', secrets: '1' }));
  const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { k: 'v' } });
  expect((await create('rq-free', 'secrets', secret('s1'))).status).toBe(201);
  const over = await create('rq-free', 'secrets', secret('s2'));
  expect(over.status).toBe(403);
  expect(over.body.message).toBe(
    'secrets "s2" is forbidden: exceeded quota: q, requested: count/secrets=1,secrets=1, used: count/secrets=1,secrets=1, limited: count/secrets=1,secrets=1',
  );
  expect((await api.delete('/api/v1/namespaces/rq-free/secrets/s1')).status).toBe(200);
  await usedOf('rq-free', 'q', (used) => used.secrets === '0');
  expect((await create('rq-free', 'secrets', secret('s2'))).status).toBe(201);
});

test('a change of spec.hard is recounted; a status without usage for a limited resource refuses with "status unknown"', async () => {
  await namespace('rq-unknown');
  const q = await counted('rq-unknown', quota('q', { pods: '1' }));
  expect((await api.put('/api/v1/namespaces/rq-unknown/resourcequotas/q', { ...q, spec: { hard: { pods: '2', 'count/configmaps': '9' } } })).status).toBe(200);
  const recounted = await usedOf('rq-unknown', 'q', (used) => 'count/configmaps' in used);
  expect(recounted.status.hard).toEqual({ pods: '2', 'count/configmaps': '9' });
  // A status written without usage (the controller only reacts to spec changes) leaves admission unable to decide.
  const blank = await api.put('/api/v1/namespaces/rq-unknown/resourcequotas/q/status', {
    ...recounted,
    status: { hard: { pods: '2', 'count/configmaps': '9' } },
  });
  expect(blank.status).toBe(200);
  const res = await create('rq-unknown', 'pods', pod('p'));
  expect(res.status).toBe(403);
  expect(res.body.message).toBe('pods "p" is forbidden: status unknown for quota: q, resources: pods');
});

test('a pod that finished no longer uses pods, though count/pods still counts it', async () => {
  await namespace('rq-done');
  await counted('rq-done', quota('q', { pods: '1', 'count/pods': '5' }));
  expect((await create('rq-done', 'pods', pod('job'))).status).toBe(201);
  expect((await create('rq-done', 'pods', pod('next'))).status).toBe(403);
  const done = await api.patch('/api/v1/namespaces/rq-done/pods/job/status', { status: { phase: 'Succeeded' } }, 'application/merge-patch+json');
  expect(done.status).toBe(200);
  const freed = await usedOf('rq-done', 'q', (used) => used.pods === '0');
  expect(freed.status.used).toEqual({ pods: '0', 'count/pods': '1' });
  expect((await create('rq-done', 'pods', pod('next'))).status).toBe(201);
});

test('scopes: BestEffort, NotBestEffort, Terminating and a PriorityClass scopeSelector count only the pods in them', async () => {
  await namespace('rq-scopes');
  // The Priority plugin refuses a pod whose class does not exist.
  for (const [name, value] of [
    ['high', 1000],
    ['low', 10],
  ] as const) {
    expect((await api.post('/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: { name }, value })).status).toBe(201);
  }
  await counted('rq-scopes', quota('besteffort', { pods: '1' }, { scopes: ['BestEffort'] }));
  await counted('rq-scopes', quota('terminating', { pods: '1' }, { scopes: ['Terminating', 'NotBestEffort'] }));
  await counted(
    'rq-scopes',
    quota('high', { pods: '1' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }),
  );
  const burstable = { requests: { cpu: '100m' } };
  expect((await create('rq-scopes', 'pods', pod('be1'))).status).toBe(201);
  expect((await create('rq-scopes', 'pods', pod('be2'))).body.message).toBe(
    'pods "be2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1',
  );
  expect((await create('rq-scopes', 'pods', pod('b1', burstable))).status).toBe(201);
  expect((await create('rq-scopes', 'pods', pod('t1', burstable, { activeDeadlineSeconds: 60 }))).status).toBe(201);
  expect((await create('rq-scopes', 'pods', pod('t2', burstable, { activeDeadlineSeconds: 60 }))).body.message).toMatch(
    /^pods "t2" is forbidden: exceeded quota: terminating,/,
  );
  expect((await create('rq-scopes', 'pods', pod('h1', burstable, { priorityClassName: 'high' }))).status).toBe(201);
  expect((await create('rq-scopes', 'pods', pod('h2', burstable, { priorityClassName: 'high' }))).body.message).toMatch(
    /^pods "h2" is forbidden: exceeded quota: high,/,
  );
  expect((await create('rq-scopes', 'pods', pod('low', burstable, { priorityClassName: 'low' }))).status).toBe(201);
});

test('services count load balancers and node ports; claims count storage, per class too; a quota counts quotas', async () => {
  await namespace('rq-kinds');
  await counted('rq-kinds', quota('svc', { services: '5', 'services.loadbalancers': '1', 'services.nodeports': '2' }));
  const svc = (name: string, type: string, ports: number) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { type, selector: { app: name }, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) },
  });
  expect((await create('rq-kinds', 'services', svc('lb', 'LoadBalancer', 1))).status).toBe(201);
  const lb2 = await create('rq-kinds', 'services', svc('lb2', 'LoadBalancer', 1));
  expect(lb2.body.message).toBe(
    'services "lb2" is forbidden: exceeded quota: svc, requested: services.loadbalancers=1, used: services.loadbalancers=1, limited: services.loadbalancers=1',
  );
  const np = await create('rq-kinds', 'services', svc('np', 'NodePort', 2));
  expect(np.body.message).toBe(
    'services "np" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=1, limited: services.nodeports=2',
  );
  // An update is charged what it adds: a ClusterIP Service turned NodePort asks for its node ports.
  expect((await create('rq-kinds', 'services', svc('cip', 'ClusterIP', 2))).status).toBe(201);
  const turned = await api.patch('/api/v1/namespaces/rq-kinds/services/cip', { spec: { type: 'NodePort' } }, 'application/merge-patch+json');
  expect(turned.status).toBe(403);
  expect(turned.body.message).toBe(
    'services "cip" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=1, limited: services.nodeports=2',
  );

  await counted(
    'rq-kinds',
    quota('storage', { 'requests.storage': '10Gi', persistentvolumeclaims: '5', 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi' }),
  );
  const claim = (name: string, size: string, storageClassName?: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...(storageClassName ? { storageClassName } : {}) },
  });
  expect((await create('rq-kinds', 'persistentvolumeclaims', claim('plain', '8Gi'))).status).toBe(201);
  const gold = await create('rq-kinds', 'persistentvolumeclaims', claim('gold', '2Gi', 'gold'));
  expect(gold.body.message).toBe(
    'persistentvolumeclaims "gold" is forbidden: exceeded quota: storage, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, used: gold.storageclass.storage.k8s.io/requests.storage=0, limited: gold.storageclass.storage.k8s.io/requests.storage=1Gi',
  );
  const big = await create('rq-kinds', 'persistentvolumeclaims', claim('big', '3Gi'));
  expect(big.body.message).toBe(
    'persistentvolumeclaims "big" is forbidden: exceeded quota: storage, requested: requests.storage=3Gi, used: requests.storage=8Gi, limited: requests.storage=10Gi',
  );

  await counted('rq-kinds', quota('quotas', { resourcequotas: '3' }));
  const fourth = await create('rq-kinds', 'resourcequotas', quota('fourth', { pods: '1' }));
  expect(fourth.body.message).toBe(
    'resourcequotas "fourth" is forbidden: exceeded quota: quotas, requested: resourcequotas=1, used: resourcequotas=3, limited: resourcequotas=3',
  );
});

test('count/<resource>.<group> counts any resource, a custom resource served after the quota too', async () => {
  await namespace('rq-generic');
  const q = await counted('rq-generic', quota('q', { 'count/widgets.quota.example.com': '1', 'count/deployments.apps': '1' }));
  expect(q.status.used).toEqual({ 'count/widgets.quota.example.com': '0', 'count/deployments.apps': '0' });
  await createEstablished(api, simpleCrd('quota.example.com', 'widgets', 'Widget'));
  const widget = (name: string) => ({ apiVersion: 'quota.example.com/v1', kind: 'Widget', metadata: { name } });
  const path = '/apis/quota.example.com/v1/namespaces/rq-generic/widgets';
  expect((await api.post(path, widget('w1'))).status).toBe(201);
  const second = await api.post(path, widget('w2'));
  expect(second.status).toBe(403);
  expect(second.body.message).toBe(
    'widgets.quota.example.com "w2" is forbidden: exceeded quota: q, requested: count/widgets.quota.example.com=1, used: count/widgets.quota.example.com=1, limited: count/widgets.quota.example.com=1',
  );
  const deployment = (name: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  });
  expect((await api.post('/apis/apps/v1/namespaces/rq-generic/deployments', deployment('d1'))).status).toBe(201);
  const d2 = await api.post('/apis/apps/v1/namespaces/rq-generic/deployments', deployment('d2'));
  expect(d2.body.message).toBe(
    'deployments.apps "d2" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1',
  );
});

describe('two replicas on one etcd', () => {
  const replicas: ServerProcess[] = [];

  beforeAll(async () => {
    const prefix = uniquePrefix('rq-ha');
    for (let i = 0; i < 2; i++) replicas.push(await startServerProcess([], { prefix }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
  });

  test('concurrent pod creates through both replicas against pods: 3 admit exactly 3', async () => {
    const [a, b] = replicas.map((r) => new Api(r.url));
    await namespace('rq-race', a);
    await counted('rq-race', quota('q', { pods: '3' }), a);
    // Both replicas' caches hold the counted quota before the race starts.
    await eventually('replica b sees the counted quota', async () =>
      (await b.get('/api/v1/namespaces/rq-race/resourcequotas/q?resourceVersion=0')).body.status?.used ? true : undefined,
    );
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).post('/api/v1/namespaces/rq-race/pods', pod(`p${i}`))));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    // The rest are refused: over quota (403), or a charge that lost every retry to the other replica (409), as in kube.
    for (const r of results.filter((x) => x.status !== 201)) {
      expect([403, 409]).toContain(r.status);
      if (r.status === 403) expect(r.body.message).toMatch(/exceeded quota: q, requested: pods=1, used: pods=3, limited: pods=3$/);
    }
    expect((await a.get('/api/v1/namespaces/rq-race/pods')).body.items).toHaveLength(3);
    expect((await a.get('/api/v1/namespaces/rq-race/resourcequotas/q')).body.status.used).toEqual({ pods: '3' });
  }, 60_000);
});
