import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** pods/eviction (policy/v1 Eviction): PodDisruptionBudgets honoured as kube-apiserver's EvictionREST does. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/default';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

beforeAll(async () => {
  // The budgets' status is written here as the disruption controller would; disruption.test.ts runs the controller itself.
  server = await startTestServer({ controllers: ['*', '-disruption-controller'] });
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const eviction = (name: string, deleteOptions?: Record<string, unknown>) => ({
  apiVersion: 'policy/v1',
  kind: 'Eviction',
  metadata: { name, namespace: 'default' },
  ...(deleteOptions ? { deleteOptions } : {}),
});
const evict = (name: string, deleteOptions?: Record<string, unknown>, query = '') =>
  api.post(`${NS}/pods/${name}/eviction${query}`, eviction(name, deleteOptions));

/** A pod of app=`app`; running and ready unless told otherwise. */
async function pod(name: string, app: string, state: 'ready' | 'unready' | 'pending' = 'ready'): Promise<void> {
  const created = await api.post(`${NS}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  expect(created.status).toBe(201);
  if (state === 'pending') return;
  const live = created.body;
  live.status = { phase: 'Running', conditions: [{ type: 'Ready', status: state === 'ready' ? 'True' : 'False' }] };
  expect((await api.put(`${NS}/pods/${name}/status`, live)).status).toBe(200);
}

/** A budget over app=`app` whose status (written as the disruption controller would) allows `allowed` disruptions. */
async function budget(name: string, app: string, allowed: number): Promise<void> {
  const created = await api.post(PDBS, {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name },
    spec: { minAvailable: 1, selector: { matchLabels: { app } } },
  });
  expect(created.status).toBe(201);
  const live = created.body;
  live.status = {
    observedGeneration: live.metadata.generation,
    disruptionsAllowed: allowed,
    currentHealthy: 2,
    desiredHealthy: 1 + (1 - allowed),
    expectedPods: 2,
  };
  expect((await api.put(`${PDBS}/${name}/status`, live)).status).toBe(200);
}

test('a pod without a budget is deleted, answering a Success Status', async () => {
  await pod('free', 'free');
  const res = await evict('free');
  expect(res.status).toBe(201);
  expect(res.body).toEqual(SUCCESS);
  expect((await api.get(`${NS}/pods/free`)).status).toBe(404);
});

test('a budget that allows a disruption is spent: disruptionsAllowed drops and the pod is recorded in disruptedPods', async () => {
  await pod('a1', 'a');
  await pod('a2', 'a');
  await budget('pdb-a', 'a', 1);
  const res = await evict('a1');
  expect(res.status).toBe(201);
  expect((await api.get(`${NS}/pods/a1`)).status).toBe(404);
  const pdb = (await api.get(`${PDBS}/pdb-a`)).body;
  expect(pdb.status.disruptionsAllowed).toBe(0);
  expect(Object.keys(pdb.status.disruptedPods)).toEqual(['a1']);
  expect(pdb.status.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }));

  const refused = await evict('a2');
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBeNull();
  expect(refused.body).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    reason: 'TooManyRequests',
    details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb-a needs 1 healthy pods and has 2 currently' }] },
    code: 429,
  });
  expect((await api.get(`${NS}/pods/a2`)).status).toBe(200);
});

test('dry run, in the query or in the delete options, neither deletes the pod nor spends the budget', async () => {
  await pod('d1', 'd');
  await budget('pdb-d', 'd', 1);
  for (const res of [await evict('d1', undefined, '?dryRun=All'), await evict('d1', { dryRun: ['All'] })]) {
    expect(res.status).toBe(201);
    expect(res.body).toEqual(SUCCESS);
  }
  const mismatch = await evict('d1', { dryRun: ['Other'] }, '?dryRun=All');
  expect(mismatch.status).toBe(500);
  expect(mismatch.body.message).toBe('Non-matching dry-run options in request and content: [All] and [Other]');
  const live = (await api.get(`${NS}/pods/d1`)).body;
  expect(live.metadata.deletionTimestamp).toBeUndefined();
  expect(live.status.conditions.map((c: { type: string }) => c.type)).not.toContain('DisruptionTarget');
  const pdb = (await api.get(`${PDBS}/pdb-d`)).body;
  expect(pdb.status.disruptionsAllowed).toBe(1);
  expect(pdb.status.disruptedPods).toBeUndefined();
});

test('a budget whose status lags its generation answers 429 until the controller catches up', async () => {
  await pod('g1', 'g');
  await budget('pdb-g', 'g', 1);
  const live = (await api.get(`${PDBS}/pdb-g`)).body;
  live.spec.minAvailable = 0;
  expect((await api.put(`${PDBS}/pdb-g`, live)).status).toBe(200);
  const res = await evict('g1');
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toBe('10');
  expect(res.body.details).toEqual({
    causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb-g is still being processed by the server.' }],
    retryAfterSeconds: 10,
  });
});

test('a pending pod, or an unready one a budget does not need, goes without spending the budget', async () => {
  await pod('p1', 'p', 'pending');
  await pod('p2', 'p', 'unready');
  await pod('p3', 'p');
  // currentHealthy 2 >= desiredHealthy 2: the budget holds without the unready pod.
  await budget('pdb-p', 'p', 0);
  expect((await evict('p1')).status).toBe(201);
  expect((await evict('p2')).status).toBe(201);
  expect((await api.get(`${NS}/pods/p1`)).status).toBe(404);
  expect((await api.get(`${NS}/pods/p2`)).status).toBe(404);
  expect((await api.get(`${PDBS}/pdb-p`)).body.status.disruptionsAllowed).toBe(0);
  // The ready one is guarded by the budget.
  expect((await evict('p3')).status).toBe(429);
});

test('delete options in the Eviction body are honoured: a precondition that fails is a 409', async () => {
  await pod('o1', 'o');
  const res = await evict('o1', { preconditions: { uid: 'not-the-uid' } });
  expect(res.status).toBe(409);
  expect(res.body.reason).toBe('Conflict');
  expect((await api.get(`${NS}/pods/o1`)).status).toBe(200);
  const uid = (await api.get(`${NS}/pods/o1`)).body.metadata.uid;
  expect((await evict('o1', { preconditions: { uid }, gracePeriodSeconds: 0 })).status).toBe(201);
  expect((await api.get(`${NS}/pods/o1`)).status).toBe(404);
});

test("the Eviction's delete options are validated as the pod store's Delete validates them, once the pod is to go", async () => {
  await pod('badopts', 'badopts', 'pending');
  const policy = await evict('badopts', { propagationPolicy: 'Sideways' });
  expect(policy.status).toBe(422);
  expect(policy.body.message).toBe(
    'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
  );
  const both = await evict('badopts', { propagationPolicy: 'Orphan', orphanDependents: true });
  expect(both.status).toBe(422);
  expect(both.body.details.causes).toEqual([
    {
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
      field: 'propagationPolicy',
    },
  ]);
  // An unknown dryRun value is 400 on every verb (docs/divergences.md).
  const dryRun = await evict('badopts', { dryRun: ['Maybe'] });
  expect(dryRun.status).toBe(400);
  expect(dryRun.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: supported values: "All"');
  const live = await api.get(`${NS}/pods/badopts`);
  expect(live.status).toBe(200);
  expect(live.body.metadata.deletionTimestamp).toBeUndefined();
  expect((await evict('badopts', { propagationPolicy: 'Background' })).body).toEqual(SUCCESS);
});

test('a name that differs from the path is a 400; a missing pod a 404', async () => {
  const mismatch = await api.post(`${NS}/pods/x/eviction`, eviction('y'));
  expect(mismatch.status).toBe(400);
  expect(mismatch.body.message).toBe('name in URL does not match name in Eviction object');
  const missing = await evict('nobody');
  expect(missing.status).toBe(404);
  expect(missing.body.message).toBe('pods "nobody" not found');
});

test('pods/eviction is in /api/v1 discovery as kube-apiserver lists it', async () => {
  const legacy = await api.get('/api/v1');
  expect(legacy.body.resources).toContainEqual({
    name: 'pods/eviction',
    singularName: '',
    namespaced: true,
    group: 'policy',
    version: 'v1',
    kind: 'Eviction',
    verbs: ['create'],
  });
  const aggregated = await api.get('/api', { accept: AGGREGATED });
  const podsEntry = aggregated.body.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === 'pods');
  expect(podsEntry.subresources).toContainEqual({
    subresource: 'eviction',
    responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
    verbs: ['create'],
  });
});

test('an evicted pod on a node is marked DisruptionTarget and terminates gracefully', async () => {
  const created = await api.post(`${NS}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'n1' },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] },
  });
  expect(created.status).toBe(201);
  const live = created.body;
  live.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
  expect((await api.put(`${NS}/pods/n1/status`, live)).status).toBe(200);
  expect((await evict('n1')).status).toBe(201);
  const pod = (await api.get(`${NS}/pods/n1`)).body;
  expect(pod.metadata.deletionTimestamp).toBeDefined();
  expect(pod.metadata.deletionGracePeriodSeconds).toBe(30);
  expect(pod.status.conditions).toContainEqual(
    expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }),
  );
  // Evicting it again is a deletion already under way: no budget is consulted.
  expect((await evict('n1')).status).toBe(201);
});

test('a pod under two budgets cannot be evicted: kube-apiserver answers a Failure of code 500', async () => {
  await pod('m1', 'm');
  await budget('pdb-m1', 'm', 1);
  await budget('pdb-m2', 'm', 1);
  const res = await evict('m1');
  expect(res.status).toBe(500);
  expect(res.body.reason).toBeUndefined();
  expect(res.body).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    code: 500,
  });
  expect((await api.get(`${NS}/pods/m1`)).status).toBe(200);
});

test('a budget with an empty selector guards every pod of its namespace (run last: it covers them all)', async () => {
  await pod('e1', 'e');
  const created = await api.post(PDBS, {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'pdb-all' },
    spec: { maxUnavailable: 0, selector: {} },
  });
  expect(created.status).toBe(201);
  const live = created.body;
  live.status = { observedGeneration: live.metadata.generation, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 };
  expect((await api.put(`${PDBS}/pdb-all/status`, live)).status).toBe(200);
  const res = await evict('e1');
  expect(res.status).toBe(429);
  expect(res.body.details.causes[0].message).toBe('The disruption budget pdb-all needs 1 healthy pods and has 1 currently');
});
