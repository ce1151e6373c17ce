import { Api } from '../harness/http';
import { kubectl } from '../harness/process';
import { startTestServer } from '../harness/server';

// core/v1 componentstatuses, computed at each request: etcd-0 with the storage's health; get and list only.

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const CS = '/api/v1/componentstatuses';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server?.close();
});

test('list and get answer etcd-0, healthy, with the deprecation warning; other names are 404', async () => {
  const list = await api.get(CS);
  expect(list.status).toBe(200);
  expect(list.headers.get('warning')).toBe('299 - "v1 ComponentStatus is deprecated in v1.19+"');
  expect(list.body).toMatchObject({
    kind: 'ComponentStatusList',
    apiVersion: 'v1',
    items: [{ metadata: { name: 'etcd-0' }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] }],
  });
  const one = await api.get(`${CS}/etcd-0`);
  expect(one.body).toMatchObject({ kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: 'etcd-0' } });
  const missing = await api.get(`${CS}/scheduler`);
  expect(missing.status).toBe(404);
  expect(missing.body.message).toBe('componentstatuses "scheduler" not found');
  expect((await api.post(CS, { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } })).status).toBe(405);
  expect((await api.delete(`${CS}/etcd-0`)).status).toBe(405);
});

test("kubectl get cs prints kube's columns", async () => {
  const got = await kubectl(server.url, ['get', 'cs']);
  expect(got.stdout).toMatch(/^NAME\s+STATUS\s+MESSAGE\s+ERROR\netcd-0\s+Healthy\s+ok\s*\n$/);
  expect(got.stderr).toContain('v1 ComponentStatus is deprecated in v1.19+');
});
