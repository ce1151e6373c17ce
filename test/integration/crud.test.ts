import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/default';

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const configMap = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('create', () => {
  test('stamps uid, creationTimestamp and a resourceVersion that is the etcd revision', async () => {
    const res = await api.post(`${NS}/configmaps`, configMap('c1'));
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body.metadata).toMatchObject({ name: 'c1', namespace: 'default' });
    expect(res.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(res.body.metadata.resourceVersion)).toBeGreaterThan(0);
    const got = await api.get(`${NS}/configmaps/c1`);
    expect(got.body.metadata.resourceVersion).toBe(res.body.metadata.resourceVersion);
  });

  test('a second create of the same name is 409 AlreadyExists', async () => {
    await api.post(`${NS}/configmaps`, configMap('dup'));
    const res = await api.post(`${NS}/configmaps`, configMap('dup'));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409, details: { name: 'dup', kind: 'configmaps' } });
    expect(res.body.message).toBe('configmaps "dup" already exists');
  });

  test('generateName draws a name with a five-character suffix', async () => {
    const res = await api.post(`${NS}/configmaps`, { metadata: { generateName: 'gen-' } });
    expect(res.status).toBe(201);
    expect(res.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  test('workloads start at generation 1; configmaps have none', async () => {
    const dep = await api.post('/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'd1' },
      spec: {
        selector: { matchLabels: { app: 'd1' } },
        template: { metadata: { labels: { app: 'd1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    expect(dep.status).toBe(201);
    expect(dep.body.metadata.generation).toBe(1);
    expect(dep.body.spec.replicas).toBe(1);
    const cm = await api.post(`${NS}/configmaps`, configMap('nogen'));
    expect(cm.body.metadata.generation).toBeUndefined();
  });

  test('a malformed workload selector is 422 naming the requirement, and not also a template mismatch', async () => {
    const res = await api.post('/apis/apps/v1/namespaces/default/replicasets', {
      metadata: { name: 'badsel' },
      spec: {
        selector: { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        field: 'spec.selector.matchExpressions[0].values',
      },
    ]);
  });

  test('invalid names and labels are 422 Invalid with causes', async () => {
    const res = await api.post(`${NS}/configmaps`, { metadata: { name: 'Bad_Name', labels: { 'bad key!': 'v' } } });
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details.kind).toBe('ConfigMap');
    expect(res.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['metadata.name', 'metadata.labels']);
    expect(res.body.message).toMatch(/^ConfigMap "Bad_Name" is invalid: \[metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  });

  test('a missing name is 422 Required', async () => {
    const res = await api.post(`${NS}/configmaps`, { metadata: {} });
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0]).toEqual({
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
      field: 'metadata.name',
    });
  });

  test('creating in a namespace that does not exist is 404 for the namespace', async () => {
    const res = await api.post('/api/v1/namespaces/nowhere/configmaps', configMap('x'));
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('namespaces "nowhere" not found');
  });

  test('body namespace different from the URL is 400', async () => {
    const res = await api.post(`${NS}/configmaps`, { metadata: { name: 'x', namespace: 'kube-system' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });

  test('kind and apiVersion mismatches are 400', async () => {
    const kind = await api.post(`${NS}/configmaps`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    expect(kind.status).toBe(400);
    expect(kind.body.message).toMatch(/^Secret in version "v1" cannot be handled as a ConfigMap/);
    const version = await api.post(`${NS}/configmaps`, { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(version.status).toBe(400);
    expect(version.body.message).toBe(
      'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
  });

  test('malformed and non-object bodies are 400 and change nothing', async () => {
    const before = await api.get(`${NS}/configmaps`);
    for (const raw of ['{bad', '[]', '"str"', '', 'null']) {
      const res = await api.request('POST', `${NS}/configmaps`, { raw, contentType: 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body.reason).toBe('BadRequest');
    }
    const wrongType = await api.post(`${NS}/configmaps`, { metadata: { name: 5 } });
    expect(wrongType.status).toBe(400);
    const after = await api.get(`${NS}/configmaps`);
    expect(after.body.items.length).toBe(before.body.items.length);
  });

  test('an unknown Content-Type is 415; a body over 3 MiB is 413', async () => {
    const res = await api.request('POST', `${NS}/configmaps`, { raw: 'x', contentType: 'application/xml' });
    expect(res.status).toBe(415);
    expect(res.body.reason).toBe('UnsupportedMediaType');
    const big = await api.post(`${NS}/configmaps`, configMap('big', { a: 'x'.repeat(3 * 1024 * 1024 + 1) }));
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ reason: 'RequestEntityTooLarge', code: 413 });
  });

  test('YAML request and response bodies', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n';
    const res = await api.request('POST', `${NS}/configmaps`, { raw: yaml, contentType: 'application/yaml', accept: 'application/yaml' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/yaml');
    expect(res.text).toMatch(/^apiVersion: v1\ndata:\n {2}k: v\nkind: ConfigMap\n/);
  });

  test('pretty=true indents JSON', async () => {
    const res = await api.get(`${NS}/configmaps/c1?pretty=true`);
    expect(res.text.startsWith('{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",')).toBe(true);
  });
});

describe('update', () => {
  test('PUT with the current resourceVersion succeeds and moves it; a stale one is 409', async () => {
    const created = await api.post(`${NS}/configmaps`, configMap('u1'));
    const rv = created.body.metadata.resourceVersion;
    const updated = await api.put(`${NS}/configmaps/u1`, { ...created.body, data: { a: '2' } });
    expect(updated.status).toBe(200);
    expect(Number(updated.body.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    const stale = await api.put(`${NS}/configmaps/u1`, { ...created.body, data: { a: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toBe(
      'Operation cannot be fulfilled on configmaps "u1": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((await api.get(`${NS}/configmaps/u1`)).body.data).toEqual({ a: '2' });
  });

  test('uid and creationTimestamp are kept; changing the uid is rejected', async () => {
    const created = await api.post(`${NS}/configmaps`, configMap('u2'));
    const res = await api.put(`${NS}/configmaps/u2`, { ...created.body, metadata: { ...created.body.metadata, creationTimestamp: '2000-01-01T00:00:00Z' } });
    expect(res.body.metadata.creationTimestamp).toBe(created.body.metadata.creationTimestamp);
    const latest = res.body;
    const bad = await api.put(`${NS}/configmaps/u2`, { ...latest, metadata: { ...latest.metadata, uid: 'other' } });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes[0].field).toBe('metadata.uid');
  });

  test('a no-op update keeps the resourceVersion', async () => {
    const created = await api.post(`${NS}/configmaps`, configMap('noop'));
    const res = await api.put(`${NS}/configmaps/noop`, created.body);
    expect(res.status).toBe(200);
    expect(res.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  test('body name different from the URL is 400; a missing object is 404', async () => {
    const res = await api.put(`${NS}/configmaps/one`, configMap('two'));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('the name of the object (two) does not match the name on the URL (one)');
    const missing = await api.put(`${NS}/configmaps/absent`, configMap('absent'));
    expect(missing.status).toBe(404);
  });

  test('leases refuse an update without resourceVersion; services create on PUT', async () => {
    const lease = await api.post('/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'l1' }, spec: { holderIdentity: 'a' } });
    expect(lease.status).toBe(201);
    const { resourceVersion: _rv, ...meta } = lease.body.metadata;
    const res = await api.put('/apis/coordination.k8s.io/v1/namespaces/default/leases/l1', { ...lease.body, metadata: meta });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Lease.coordination.k8s.io "l1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
    const svc = await api.put(`${NS}/services/via-put`, { metadata: { name: 'via-put' }, spec: { ports: [{ port: 80 }] } });
    expect(svc.status).toBe(201);
    expect(svc.body.spec.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\./);
  });

  test('status is kept by a main-resource update and changed only through /status', async () => {
    const dep = await api.post('/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'st' },
      spec: {
        selector: { matchLabels: { app: 'st' } },
        template: { metadata: { labels: { app: 'st' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    const path = '/apis/apps/v1/namespaces/default/deployments/st';
    const viaMain = await api.put(path, { ...dep.body, status: { replicas: 5 } });
    expect(viaMain.body.status).toEqual({});
    const viaStatus = await api.put(`${path}/status`, { ...viaMain.body, spec: { ...viaMain.body.spec, replicas: 9 }, status: { replicas: 5 } });
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.body.status).toEqual({ replicas: 5 });
    expect(viaStatus.body.spec.replicas).toBe(1);
    expect(viaStatus.body.metadata.generation).toBe(1);
    const specChange = await api.put(path, { ...viaStatus.body, spec: { ...viaStatus.body.spec, replicas: 2 } });
    expect(specChange.body.metadata.generation).toBe(2);
  });
});

describe('delete', () => {
  test('configmaps answer a Success Status; pods answer the object', async () => {
    await api.post(`${NS}/configmaps`, configMap('del1'));
    const res = await api.delete(`${NS}/configmaps/del1`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'del1', kind: 'configmaps' } });
    expect((await api.get(`${NS}/configmaps/del1`)).status).toBe(404);
    await api.post(`${NS}/pods`, { metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    const pod = await api.delete(`${NS}/pods/p1`);
    expect(pod.status).toBe(200);
    expect(pod.body.kind).toBe('Pod');
    expect((await api.delete(`${NS}/pods/p1`)).status).toBe(404);
  });

  test('finalizers: marked, kept, then removed with the last finalizer and the name reusable', async () => {
    const created = await api.post(`${NS}/configmaps`, { metadata: { name: 'fin', finalizers: ['example.com/hold'] } });
    const marked = await api.delete(`${NS}/configmaps/fin`);
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    expect(marked.body.metadata.deletionGracePeriodSeconds).toBe(0);
    const still = await api.get(`${NS}/configmaps/fin`);
    expect(still.status).toBe(200);
    const addMore = await api.put(`${NS}/configmaps/fin`, {
      ...still.body,
      metadata: { ...still.body.metadata, finalizers: ['example.com/hold', 'example.com/more'] },
    });
    expect(addMore.status).toBe(422);
    const released = await api.put(`${NS}/configmaps/fin`, { ...still.body, metadata: { ...still.body.metadata, finalizers: [] } });
    expect(released.status).toBe(200);
    expect((await api.get(`${NS}/configmaps/fin`)).status).toBe(404);
    const again = await api.post(`${NS}/configmaps`, configMap('fin'));
    expect(again.status).toBe(201);
    expect(again.body.metadata.uid).not.toBe(created.body.metadata.uid);
  });

  test('preconditions on uid and resourceVersion are 409 when they do not match', async () => {
    const created = await api.post(`${NS}/configmaps`, configMap('pre'));
    const res = await api.delete(`${NS}/configmaps/pre`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } } });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (nope) does not match the UID in record (${created.body.metadata.uid}). The object might have been deleted and then recreated`,
    );
    const ok = await api.delete(`${NS}/configmaps/pre`, { body: { preconditions: { uid: created.body.metadata.uid } } });
    expect(ok.status).toBe(200);
  });

  test('deletecollection removes what the selector matches', async () => {
    await api.post(`${NS}/configmaps`, { metadata: { name: 'dc1', labels: { group: 'dc' } } });
    await api.post(`${NS}/configmaps`, { metadata: { name: 'dc2', labels: { group: 'dc' } } });
    await api.post(`${NS}/configmaps`, { metadata: { name: 'dc3', labels: { group: 'keep' } } });
    const res = await api.delete(`${NS}/configmaps?labelSelector=group%3Ddc`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()).toEqual(['dc1', 'dc2']);
    const left = await api.get(`${NS}/configmaps?labelSelector=group`);
    expect(left.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['dc3']);
  });
});

describe('paths and verbs', () => {
  test('unknown paths and resources are 404 Status; wrong verbs are 405', async () => {
    for (const path of ['/api/v1/nothings', '/apis/nogroup/v1/things', '/bogus']) {
      const res = await api.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    }
    const post = await api.post(`${NS}/configmaps/named`, configMap('named'));
    expect(post.status).toBe(405);
    expect(post.body.reason).toBe('MethodNotAllowed');
    const nsCollection = await api.delete('/api/v1/namespaces');
    expect(nsCollection.status).toBe(405);
  });

  test('list answers the etcd header revision and kind List', async () => {
    const res = await api.get('/api/v1/configmaps');
    expect(res.body.kind).toBe('ConfigMapList');
    expect(Number(res.body.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  test('the system namespaces exist and cannot be deleted', async () => {
    const list = await api.get('/api/v1/namespaces');
    const names = list.body.items.map((n: { metadata: { name: string } }) => n.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']));
    const res = await api.delete('/api/v1/namespaces/kube-system');
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('Forbidden');
  });
});
