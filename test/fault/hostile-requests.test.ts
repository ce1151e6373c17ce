import { connect } from 'node:net';
import { Api } from '../harness/http';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { yamlAliasBomb } from '../harness/fuzz';
import { livezProbe, rawGet, rawRequest } from '../harness/raw-http';

/**
 * Requests that used to crash or freeze kapi (issue 10, items 1, 2, 8 and 9), against the built
 * server as a process: each is answered with a Status, and the process keeps serving.
 */

let server: ServerProcess & { port: number };
let api: Api;

beforeAll(async () => {
  server = await startServerProcess();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.stop();
});

afterEach(() => {
  expect(server.child.exitCode).toBeNull();
});

const isStatus = (body: string, code: number): boolean => {
  const status = JSON.parse(body);
  return status.kind === 'Status' && status.status === 'Failure' && status.code === code;
};

test('a pretty value that is not a Go boolean is ignored, as isPrettyPrint ignores it', async () => {
  for (const pretty of ['on', 'yes', '%', '2']) {
    const res = await rawGet(server.port, `/version?pretty=${pretty}`);
    expect(res.code).toBe(200);
    expect(JSON.parse(res.body).major).toBe('1');
  }
  const pretty = await rawGet(server.port, '/version?pretty=true');
  expect(pretty.body).toContain('\n  "major"');
});

test('odd request targets are answered: "//", absolute form with a bad port, bad escapes, garbage', async () => {
  const slashes = await rawGet(server.port, '//');
  expect(slashes.code).toBe(404);
  expect(isStatus(slashes.body, 404)).toBe(true);

  // Go reads only the path of an absolute-form target; its authority is not checked.
  const absolute = await rawGet(server.port, 'http://x:99999/');
  expect(absolute.code).toBe(200);
  expect(JSON.parse(absolute.body).paths).toContain('/api');
  const absoluteApi = await rawGet(server.port, 'http://x:99999/api/v1/namespaces?limit=1');
  expect(JSON.parse(absoluteApi.body).kind).toBe('NamespaceList');

  const escape = await rawGet(server.port, '/api/v1/namespaces/%zz');
  expect(escape.code).toBe(400);
  expect(JSON.parse(escape.body).message).toBe('invalid URL escape "%zz"');

  const garbage = await rawRequest(server.port, 'HELLO THERE\r\n\r\n');
  expect(garbage.code).toBe(400);
  expect(isStatus(garbage.body, 400)).toBe(true);
  expect(garbage.closed).toBe(true);

  const asterisk = await rawRequest(server.port, 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  expect(asterisk.code).toBe(404);
  expect(isStatus(asterisk.body, 404)).toBe(true);
});

test('percent-encoded path segments are decoded as Go decodes URL.Path', async () => {
  const role = await api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'system:probe' }, rules: [] });
  expect(role.status).toBe(201);
  const got = await api.get('/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aprobe');
  expect(got.status).toBe(200);
  expect(got.body.metadata.name).toBe('system:probe');

  expect((await api.post('/api/v1/namespaces/kube-system/configmaps', { metadata: { name: 'decoded' } })).status).toBe(201);
  const list = await api.get('/api/v1/namespaces/kube%2Dsystem/configmaps');
  expect(list.body.items.map((cm: { metadata: { name: string } }) => cm.metadata.name)).toContain('decoded');
  // %2F decodes to '/', then the path is split: the extra segment is an unknown path.
  expect((await api.get('/api/v1/namespaces/kube-system/configmaps/a%2Fb')).status).toBe(404);
});

test('request targets up to 1 MiB are served; longer ones get 431 with a Status', async () => {
  const long = await rawGet(server.port, `/api/v1/namespaces?limit=1&x=${'a'.repeat(1000 * 1000)}`);
  expect(long.code).toBe(200);
  expect(JSON.parse(long.body).kind).toBe('NamespaceList');
  const tooLong = await rawGet(server.port, `/api/v1/namespaces?x=${'a'.repeat(1100 * 1024)}`);
  expect(tooLong.code).toBe(431);
  expect(isStatus(tooLong.body, 431)).toBe(true);
  expect(tooLong.closed).toBe(true);
});

test('limit and timeoutSeconds wider than an int64 are 400s; a huge timeoutSeconds does not overflow the timer', async () => {
  const limit = await api.get('/api/v1/pods?limit=99999999999999999999999');
  expect(limit.status).toBe(400);
  expect(limit.body.message).toBe('strconv.ParseInt: parsing "99999999999999999999999": value out of range');
  const timeout = await api.get('/api/v1/pods?watch=1&timeoutSeconds=99999999999999999999');
  expect(timeout.status).toBe(400);
  expect(timeout.body.message).toBe('strconv.ParseInt: parsing "99999999999999999999": value out of range');

  const socket = connect(server.port, '127.0.0.1');
  let ended = false;
  socket.on('close', () => (ended = true));
  socket.on('error', () => undefined);
  socket.write('GET /api/v1/namespaces?watch=1&timeoutSeconds=9223372036854775807 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await new Promise((r) => setTimeout(r, 1500));
  expect(ended).toBe(false);
  socket.destroy();
});

test('a YAML alias bomb is a quick 400 for create, update and apply, and /livez keeps answering', async () => {
  const probe = livezProbe(server.url, 100);
  const ns = '/api/v1/namespaces/default/configmaps';
  expect((await api.post(ns, { metadata: { name: 'bombed' } })).status).toBe(201);
  const cases: [string, string, string][] = [
    ['POST', ns, 'application/yaml'],
    ['PUT', `${ns}/bombed`, 'application/yaml'],
    ['PATCH', `${ns}/bombed?fieldManager=fault`, 'application/apply-patch+yaml'],
  ];
  for (const [method, path, contentType] of cases) {
    const started = Date.now();
    const res = await api.request(method, path, { raw: yamlAliasBomb(), contentType });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('excessive aliasing');
  }
  const { slowestMs, failures } = await probe.stop();
  expect(failures).toEqual([]);
  expect(slowestMs).toBeLessThan(1000);
});

test('a 413 for a huge Content-Length closes the connection', async () => {
  const head =
    'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"a":';
  const res = await rawRequest(server.port, head, { lingerMs: 2000 });
  expect(res.code).toBe(413);
  expect(isStatus(res.body, 413)).toBe(true);
  expect(res.headers.connection).toBe('close');
  expect(res.closed).toBe(true);
});

test('a request past its deadline gets 504 Timeout (here a body that stops coming, with ?timeout=1s)', async () => {
  const started = Date.now();
  const head =
    'POST /api/v1/namespaces/default/configmaps?timeout=1s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"metadata":';
  const res = await rawRequest(server.port, head, { lingerMs: 2000 });
  expect(res.code).toBe(504);
  const status = JSON.parse(res.body);
  expect(status).toMatchObject({
    kind: 'Status',
    reason: 'Timeout',
    code: 504,
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
  });
  expect(res.closed).toBe(true);
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(Date.now() - started).toBeLessThan(3000);

  const bad = await api.get('/api/v1/pods?timeout=soon');
  expect(bad.status).toBe(400);
  expect(bad.body.message).toBe('invalid timeout specified in the request URL - time: invalid duration "soon"');
});
