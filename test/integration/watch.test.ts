import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { openWatch } from '../harness/watch';
import { eventually } from '../harness/etcd-keys';

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const CM = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  // The root CA publisher adds kube-root-ca.crt to default soon after the start: let that happen before any watch here.
  await eventually('kube-root-ca.crt in default', async () => ((await api.get(`${CM}/kube-root-ca.crt`)).status === 200 ? true : undefined));
});

afterAll(async () => {
  await server.close();
});

test('watch from a resourceVersion streams ADDED, MODIFIED and DELETED after it', async () => {
  const before = await api.post(CM, { metadata: { name: 'w0' } });
  const watch = await openWatch(`${server.url}${CM}?watch=1&resourceVersion=${before.body.metadata.resourceVersion}`);
  try {
    expect(watch.status).toBe(200);
    expect(watch.contentType).toBe('application/json;stream=watch');
    const created = await api.post(CM, { metadata: { name: 'w1' }, data: { a: '1' } });
    const added = await watch.next();
    expect(added.type).toBe('ADDED');
    expect(added.object).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'w1', resourceVersion: created.body.metadata.resourceVersion },
    });
    await api.put(`${CM}/w1`, { ...created.body, data: { a: '2' } });
    const modified = await watch.next();
    expect(modified.type).toBe('MODIFIED');
    expect(modified.object.data).toEqual({ a: '2' });
    await api.delete(`${CM}/w1`);
    const deleted = await watch.next();
    expect(deleted.type).toBe('DELETED');
    expect(deleted.object.metadata.name).toBe('w1');
    expect(Number(deleted.object.metadata.resourceVersion)).toBeGreaterThan(Number(modified.object.metadata.resourceVersion));
  } finally {
    watch.close();
  }
});

test('watch without a resourceVersion starts with the current objects', async () => {
  await api.post(CM, { metadata: { name: 'w2' } });
  const watch = await openWatch(`${server.url}${CM}?watch=true&fieldSelector=metadata.name%3Dw2`);
  try {
    const first = await watch.next();
    expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w2' } } });
  } finally {
    watch.close();
  }
});

test('a single-object watch path (the /watch/ prefix) sees only that object', async () => {
  const start = await api.get(CM);
  const watch = await openWatch(`${server.url}/api/v1/watch/namespaces/default/configmaps/w3?resourceVersion=${start.body.metadata.resourceVersion}`);
  try {
    await api.post(CM, { metadata: { name: 'other' } });
    await api.post(CM, { metadata: { name: 'w3' } });
    expect((await watch.next()).object.metadata.name).toBe('w3');
  } finally {
    watch.close();
  }
});

test('a watch from resourceVersion "00" starts from the current state, as from "0" (Cacher.Watch reads the number)', async () => {
  expect((await api.post(CM, { metadata: { name: 'zero-zero' } })).status).toBe(201);
  const res = await fetch(`${server.url}${CM}?watch=1&timeoutSeconds=1&resourceVersion=00`);
  expect(res.status).toBe(200);
  const events = (await res.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(events.filter((e) => e.object?.metadata?.name === 'zero-zero').map((e) => e.type)).toEqual(['ADDED']);
});

test('timeoutSeconds ends the stream', async () => {
  const started = Date.now();
  const res = await fetch(`${server.url}${CM}?watch=1&timeoutSeconds=1&resourceVersion=0`);
  await res.text();
  expect(Date.now() - started).toBeLessThan(5000);
});

test('?watch= on a named object is a get (RequestInfo turns only a collection into a watch); the /watch/ prefix still watches one object', async () => {
  expect((await api.post(CM, { metadata: { name: 'named-watch' }, data: { a: 'b' } })).status).toBe(201);
  const got = await api.get(`${CM}/named-watch?watch=1`);
  expect(got.status).toBe(200);
  expect(got.headers.get('content-type')).toBe('application/json');
  expect(got.body).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'named-watch' } });
  const controller = new AbortController();
  const legacy = await fetch(`${api.base}/api/v1/watch/namespaces/default/configmaps/named-watch?timeoutSeconds=1`, { signal: controller.signal });
  expect(legacy.status).toBe(200);
  const first = await legacy.body!.getReader().read();
  controller.abort();
  expect(JSON.parse(Buffer.from(first.value!).toString().split('\n')[0])).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'named-watch' } } });
});

test('bool options read as url.Values convert them: anything but absent, 0 or false is true, never a 400', async () => {
  const res = await fetch(`${api.base}${CM}?watch=1&allowWatchBookmarks=yes&timeoutSeconds=1&resourceVersion=0`);
  expect(res.status).toBe(200);
  await res.text();
  expect((await api.post(CM, { metadata: { name: 'orphan-word' } })).status).toBe(201);
  const deleted = await api.delete(`${CM}/orphan-word?orphanDependents=xyz`);
  expect(deleted.status).toBe(200);
  // Read as true: the object waits for the garbage collector's orphan finalizer.
  expect(deleted.body.metadata.finalizers).toContain('orphan');
});

test('timeoutSeconds as strconv.ParseInt reads it: +1 ends the watch after a second, -1 at once', async () => {
  for (const [given, within] of [
    ['%2B1', 5000],
    ['-1', 2000],
  ] as const) {
    const started = Date.now();
    const res = await fetch(`${api.base}${CM}?watch=1&resourceVersion=0&timeoutSeconds=${given}`);
    expect(res.status).toBe(200);
    await res.text();
    expect(Date.now() - started).toBeLessThan(within);
  }
});

test('GET ?export=true is a 400, as GetResource refuses it since 1.18; export=false is a get', async () => {
  expect((await api.post(CM, { metadata: { name: 'exported' } })).status).toBe(201);
  const refused = await api.get(`${CM}/exported?export=true`);
  expect(refused.status).toBe(400);
  expect(refused.body.message).toBe('the export parameter, deprecated since v1.14, is no longer supported');
  expect((await api.get(`${CM}/exported?export=false`)).status).toBe(200);
});

test("a /watch/ path's name and a field selector naming another object is a 400, as ListResource checks", async () => {
  const path = `${api.base}/api/v1/watch/namespaces/default/configmaps/w-named`;
  const refused = await fetch(`${path}?fieldSelector=metadata.name%3Dother`);
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { message: string }).message).toBe("fieldSelector metadata.name doesn't match requested name");
  const same = await fetch(`${path}?fieldSelector=metadata.name%3Dw-named&timeoutSeconds=1`);
  expect(same.status).toBe(200);
  await same.text();
});

test('a bad includeObject for a Table is 400 before a watch streams, and for a list, in ValidateTableOptions words', async () => {
  const accept = 'application/json;as=Table;g=meta.k8s.io;v=v1';
  const message = `Unable to convert to Table as requested: includeObject: Invalid value: "bogus": must be 'Metadata', 'Object', 'None', or empty`;
  const watch = await fetch(`${api.base}${CM}?watch=1&includeObject=bogus`, { headers: { accept } });
  expect(watch.status).toBe(400);
  expect(((await watch.json()) as { message: string }).message).toBe(message);
  const list = await api.get(`${CM}?includeObject=bogus`, { accept });
  expect(list.status).toBe(400);
  expect(list.body.message).toBe(message);
});
