import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

/**
 * The disruption controller: each PodDisruptionBudget's status from its pods and their
 * controllers' scale, and pods/eviction spending what it computes, as with kube-controller-manager
 * beside kube-apiserver.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/default';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const APPS = '/apis/apps/v1/namespaces/default';
const SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

type Owner = { apiVersion: string; kind: string; name: string; uid: string };

/** A running pod of app=`app`, ready unless told otherwise, controlled by `owner` when given. */
async function pod(name: string, app: string, opts: { ready?: boolean; owner?: Owner } = {}): Promise<void> {
  const metadata = { name, labels: { app }, ...(opts.owner ? { ownerReferences: [{ ...opts.owner, controller: true }] } : {}) };
  const created = await api.post(`${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  expect(created.status).toBe(201);
  const live = created.body;
  live.status = { phase: 'Running', conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] };
  expect((await api.put(`${NS}/pods/${name}/status`, live)).status).toBe(200);
}

async function budget(name: string, app: string, spec: Record<string, unknown>): Promise<void> {
  const created = await api.post(PDBS, {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name },
    spec: { ...spec, selector: { matchLabels: { app } } },
  });
  expect(created.status).toBe(201);
}

/** The budget's status once the controller has it matching `expected`. */
function statusOf(name: string, expected: Record<string, unknown>) {
  return eventually(`${name}'s status`, async () => {
    const status = (await api.get(`${PDBS}/${name}`)).body.status;
    return Object.entries(expected).every(([k, v]) => JSON.stringify(status[k]) === JSON.stringify(v)) ? status : undefined;
  });
}

const evict = (name: string, query = '') =>
  api.post(`${NS}/pods/${name}/eviction${query}`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });

test('minAvailable: status from ready pods; eviction allowed, then refused with 429; a dry run spends nothing', async () => {
  await pod('m1', 'm');
  await pod('m2', 'm');
  await pod('m3', 'm');
  await pod('m4', 'm', { ready: false });
  await budget('pdb-m', 'm', { minAvailable: 2 });
  const status = await statusOf('pdb-m', { currentHealthy: 3, desiredHealthy: 2, expectedPods: 4, disruptionsAllowed: 1, observedGeneration: 1 });
  expect(status.conditions).toEqual([
    { type: 'DisruptionAllowed', status: 'True', observedGeneration: 1, lastTransitionTime: expect.any(String), reason: 'SufficientPods', message: '' },
  ]);

  const dry = await evict('m1', '?dryRun=All');
  expect(dry.status).toBe(201);
  expect((await api.get(`${NS}/pods/m1`)).status).toBe(200);
  expect((await api.get(`${PDBS}/pdb-m`)).body.status.disruptionsAllowed).toBe(1);

  const allowed = await evict('m1');
  expect(allowed.status).toBe(201);
  expect(allowed.body).toEqual(SUCCESS);
  expect((await api.get(`${NS}/pods/m1`)).status).toBe(404);
  // The controller sees the pod gone: two healthy, nothing left to spend, the evicted pod no longer listed.
  const after = await statusOf('pdb-m', { currentHealthy: 2, disruptionsAllowed: 0, expectedPods: 3 });
  expect(after.disruptedPods).toBeUndefined();
  expect(after.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' })]);

  const refused = await evict('m2');
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    reason: 'TooManyRequests',
    code: 429,
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb-m needs 2 healthy pods and has 2 currently' }] },
  });
  expect((await api.get(`${NS}/pods/m2`)).status).toBe(200);
  // An unready pod the budget does not need goes without spending it.
  expect((await evict('m4')).status).toBe(201);
});

test("maxUnavailable and percentages count by the controllers' scale: a Deployment for its ReplicaSets, a StatefulSet", async () => {
  const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const deploy = (
    await api.post(`${APPS}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 5, selector: { matchLabels: { app: 'web' } }, template: template('web') },
    })
  ).body;
  const rs = await api.post(`${APPS}/replicasets`, {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deploy.metadata.uid, controller: true }] },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('web') },
  });
  expect(rs.status).toBe(201);
  const rsOwner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: rs.body.metadata.uid };
  for (const n of ['w1', 'w2', 'w3', 'w4']) await pod(n, 'web', { owner: rsOwner });
  await budget('pdb-web', 'web', { maxUnavailable: '25%' });
  // Expected: the Deployment's 5 (not the ReplicaSet's 2); 25% of 5 rounds up to 2 unavailable.
  await statusOf('pdb-web', { expectedPods: 5, desiredHealthy: 3, currentHealthy: 4, disruptionsAllowed: 1 });

  const sts = (
    await api.post(`${APPS}/statefulsets`, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db') },
    })
  ).body;
  const stsOwner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: sts.metadata.uid };
  for (const n of ['db-0', 'db-1', 'db-2']) await pod(n, 'db', { owner: stsOwner });
  await budget('pdb-db', 'db', { minAvailable: '50%' });
  await statusOf('pdb-db', { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 });

  // A pod whose controller has no scale subresource: nothing may be disrupted, and the condition says why.
  const job = (
    await api.post('/apis/batch/v1/namespaces/default/jobs', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once' },
      spec: { template: { ...template('once'), spec: { ...template('once').spec, restartPolicy: 'Never' } } },
    })
  ).body;
  await pod('once-1', 'once', { owner: { apiVersion: 'batch/v1', kind: 'Job', name: 'once', uid: job.metadata.uid } });
  await budget('pdb-once', 'once', { maxUnavailable: 1 });
  const failed = await eventually('the sync failure', async () => {
    const s = (await api.get(`${PDBS}/pdb-once`)).body.status;
    return s.conditions?.[0]?.reason === 'SyncFailed' ? s : undefined;
  });
  expect(failed.disruptionsAllowed).toBe(0);
  expect(failed.conditions).toEqual([
    expect.objectContaining({
      type: 'DisruptionAllowed',
      status: 'False',
      reason: 'SyncFailed',
      message: 'jobs.batch does not implement the scale subresource',
    }),
  ]);
});

test('disruptedPods: a recent eviction keeps the pod out of the healthy count; one older than two minutes is pruned', async () => {
  await pod('d1', 'd');
  await pod('d2', 'd');
  await pod('d3', 'd');
  await budget('pdb-d', 'd', { minAvailable: 1 });
  const synced = await statusOf('pdb-d', { currentHealthy: 3, disruptionsAllowed: 2 });
  const live = (await api.get(`${PDBS}/pdb-d`)).body;
  const recent = new Date(Date.now() - 10_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const stale = new Date(Date.now() - 3 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  live.status = { ...synced, disruptedPods: { d1: recent, d2: stale } };
  expect((await api.put(`${PDBS}/pdb-d/status`, live)).status).toBe(200);
  const pruned = await statusOf('pdb-d', { currentHealthy: 2, disruptionsAllowed: 1 });
  expect(pruned.disruptedPods).toEqual({ d1: recent });
});
