import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = 'dry-run';
const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
const MERGE = 'application/merge-patch+json';

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
  expect((await api.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
});

afterAll(async () => {
  await server.close();
});

describe('a dry-run update reads what etcd holds, not the watch cache', () => {
  // Each round writes, then at once dry-runs against what it wrote: an answer from a watch cache still
  // behind etcd would show the round before. Whether the cache lags is up to timing (it did under a
  // full run's load); storage-contract.test.ts hands guaranteedUpdate a stale copy for certain.
  const ROUNDS = 30;

  test('a dry-run patch right after a write starts from that write', async () => {
    expect((await api.post(cmPath(), { metadata: { name: 'fresh-patch' }, data: { n: '0' } })).status).toBe(201);
    for (let i = 1; i <= ROUNDS; i++) {
      const written = await api.patch(cmPath('fresh-patch'), { data: { n: String(i) } }, MERGE);
      expect(written.status).toBe(200);
      const dry = await api.patch(`${cmPath('fresh-patch')}?dryRun=All`, { data: { dry: 'yes' } }, MERGE);
      expect(dry.status).toBe(200);
      expect(dry.body.data).toEqual({ n: String(i), dry: 'yes' });
      expect(dry.body.metadata.resourceVersion).toBe(written.body.metadata.resourceVersion);
    }
    expect((await api.get(cmPath('fresh-patch'))).body.data).toEqual({ n: String(ROUNDS) });
  });

  test('a dry-run update carrying the resourceVersion a write replaced is a conflict', async () => {
    const created = await api.post(cmPath(), { metadata: { name: 'fresh-put' }, data: { n: '0' } });
    expect(created.status).toBe(201);
    let previous = created.body;
    for (let i = 1; i <= ROUNDS; i++) {
      const written = await api.put(cmPath('fresh-put'), { ...previous, data: { n: String(i) } });
      expect(written.status).toBe(200);
      const dry = await api.put(`${cmPath('fresh-put')}?dryRun=All`, { ...previous, data: { dry: 'yes' } });
      expect(dry.status).toBe(409);
      expect(dry.body.message).toBe(
        'Operation cannot be fulfilled on configmaps "fresh-put": the object has been modified; please apply your changes to the latest version and try again',
      );
      previous = written.body;
    }
    expect((await api.get(cmPath('fresh-put'))).body.data).toEqual({ n: String(ROUNDS) });
  });
});

describe('a create of a name already taken (Store.create), dry run or not', () => {
  const taken = { metadata: { name: 'taken' }, data: { a: '1' } };

  beforeAll(async () => {
    expect((await api.post(cmPath(), taken)).status).toBe(201);
  });

  test.each(['', '?dryRun=All'])('%s: AlreadyExists', async (query) => {
    const res = await api.post(`${cmPath()}${query}`, taken);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "taken" already exists', details: { name: 'taken', kind: 'configmaps' } });
    expect(res.headers.get('retry-after')).toBeNull();
  });

  test.each(['', '?dryRun=All'])('%s: a name beside generateName gets the generated-name conflict (CheckGeneratedNameError)', async (query) => {
    const res = await api.post(`${cmPath()}${query}`, { ...taken, metadata: { name: 'taken', generateName: 'taken-' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      reason: 'AlreadyExists',
      message: 'configmaps "taken" already exists, the server was not able to generate a unique name for the object',
      details: { name: 'taken', kind: 'configmaps', retryAfterSeconds: 1 },
    });
    expect(res.headers.get('retry-after')).toBe('1');
  });

  test.each(['', '?dryRun=All'])('%s: a name held by an object being deleted says so', async (query) => {
    const held = { metadata: { name: `held${query ? '-dry' : ''}`, finalizers: ['example.com/hold'] } };
    expect((await api.post(cmPath(), held)).status).toBe(201);
    expect((await api.delete(cmPath(held.metadata.name))).status).toBe(200);
    try {
      const res = await api.post(`${cmPath()}${query}`, { metadata: { name: held.metadata.name } });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ reason: 'AlreadyExists', message: `object is being deleted: configmaps "${held.metadata.name}" already exists` });
    } finally {
      await api.patch(cmPath(held.metadata.name), { metadata: { finalizers: null } }, MERGE);
    }
    expect((await api.get(cmPath(held.metadata.name))).status).toBe(404);
  });
});

test('a dry-run create through apply or PUT answers without a resourceVersion, as a dry-run POST does', async () => {
  const post = await api.post(`${cmPath()}?dryRun=All`, { metadata: { name: 'dry-new' } });
  const apply = await api.request('PATCH', `${cmPath('dry-new')}?dryRun=All&fieldManager=x`, {
    raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry-new\ndata:\n  a: b\n',
    contentType: 'application/apply-patch+yaml',
  });
  // Endpoints allow a create on update.
  const put = await api.put(`/api/v1/namespaces/${NS}/endpoints/dry-new?dryRun=All`, { metadata: { name: 'dry-new' } });
  for (const res of [post, apply, put]) {
    expect(res.status).toBe(201);
    expect(res.body.metadata.uid).toBeDefined();
    expect(Object.keys(res.body.metadata)).not.toContain('resourceVersion');
  }
  expect((await api.get(cmPath('dry-new'))).status).toBe(404);
  expect((await api.get(`/api/v1/namespaces/${NS}/endpoints/dry-new`)).status).toBe(404);
});

describe('a create whose object carries a resourceVersion', () => {
  test('is refused by the storage step as etcd3 store.Create refuses it; a dry run echoes it', async () => {
    const sent = (name: string, resourceVersion: string, query = '') =>
      api.post(`${cmPath()}${query}`, { metadata: { name, resourceVersion }, data: { a: '1' } });
    const refused = await sent('rv-set', '5');
    expect([refused.status, refused.body.reason, refused.body.message]).toEqual([500, undefined, 'resourceVersion should not be set on objects to be created']);
    expect((await api.get(cmPath('rv-set'))).status).toBe(404);
    // Validation comes first: an invalid object is its 422, not the 500.
    expect((await sent('Not_Valid', '5')).status).toBe(422);
    // DryRunnableStorage.Create skips the check and answers with the object as it came.
    const dry = await sent('rv-set', '5', '?dryRun=All');
    expect([dry.status, dry.body.metadata.resourceVersion]).toEqual([201, '5']);
    // A version the versioner reads as 0, or cannot read, is cleared: the object is created.
    for (const [name, resourceVersion] of [
      ['rv-zero', '0'],
      ['rv-word', 'abc'],
    ]) {
      const created = await sent(name, resourceVersion);
      expect([created.status, created.body.metadata.resourceVersion]).toEqual([201, expect.stringMatching(/^[1-9][0-9]*$/)]);
    }
  });
});
