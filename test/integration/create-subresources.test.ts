import { decodeProtobuf } from '../../src/codec/protobuf';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** Subresources whose only verb is create: pods/binding (and the legacy bindings) and serviceaccounts/token. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/default';
const AUTHN = '/apis/authentication.k8s.io/v1';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...extra },
});
const binding = (name: string, target: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, ...metadata },
  target,
});
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
const review = (token: string, audiences?: string[]) =>
  api.post(`${AUTHN}/tokenreviews`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });

describe('pods/binding', () => {
  test('sets nodeName, the binding annotations and PodScheduled, answering a Success Status', async () => {
    expect((await api.post(`${NS}/pods`, pod('b1'))).status).toBe(201);
    const res = await api.post(`${NS}/pods/b1/binding`, binding('b1', { kind: 'Node', name: 'node-1' }, { annotations: { 'scheduler/by': 'test' } }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const got = (await api.get(`${NS}/pods/b1`)).body;
    expect(got.spec.nodeName).toBe('node-1');
    expect(got.metadata.annotations).toEqual({ 'scheduler/by': 'test' });
    expect(got.status.conditions).toEqual([{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: expect.any(String) }]);
  });

  test('409 once assigned, 404 for a missing pod, 400 for another name, 422 for a bad target', async () => {
    const again = await api.post(`${NS}/pods/b1/binding`, binding('b1', { name: 'node-2' }));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on pods/binding "b1": pod b1 is already assigned to node "node-1"',
      details: { name: 'b1', kind: 'pods/binding' },
    });
    const missing = await api.post(`${NS}/pods/nope/binding`, binding('nope', { name: 'node-1' }));
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('pods "nope" not found');
    const other = await api.post(`${NS}/pods/b1/binding`, binding('b2', { name: 'node-1' }));
    expect(other.status).toBe(400);
    expect(other.body.message).toBe('name in URL does not match name in Binding object');
    await api.post(`${NS}/pods`, pod('b3'));
    const bad = await api.post(`${NS}/pods/b3/binding`, binding('b3', { kind: 'Pod' }));
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'Binding "b3" is invalid: [target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]',
    );
  });

  test('409 for a pod being deleted', async () => {
    // A finalizer keeps the unscheduled pod (otherwise removed at once) while it is being deleted.
    await api.post(`${NS}/pods`, { ...pod('b4'), metadata: { name: 'b4', finalizers: ['example.com/hold'] } });
    expect((await api.delete(`${NS}/pods/b4`)).status).toBe(200);
    const res = await api.post(`${NS}/pods/b4/binding`, binding('b4', { name: 'node-1' }));
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('Operation cannot be fulfilled on pods/binding "b4": pod b4 is being deleted, cannot be assigned to a host');
  });

  test('dryRun changes nothing; GET and PUT on the path are 405', async () => {
    await api.post(`${NS}/pods`, pod('b5'));
    expect((await api.post(`${NS}/pods/b5/binding?dryRun=All`, binding('b5', { name: 'node-1' }))).status).toBe(201);
    expect((await api.get(`${NS}/pods/b5`)).body.spec.nodeName).toBeUndefined();
    expect((await api.get(`${NS}/pods/b5/binding`)).status).toBe(405);
    expect((await api.put(`${NS}/pods/b5/binding`, binding('b5', { name: 'node-1' }))).status).toBe(405);
  });

  test('the legacy bindings collection binds the pod the Binding names', async () => {
    await api.post(`${NS}/pods`, pod('b6'));
    const res = await api.post(`${NS}/bindings`, binding('b6', { name: 'node-3' }));
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('Success');
    expect((await api.get(`${NS}/pods/b6`)).body.spec.nodeName).toBe('node-3');
    expect((await api.get(`${NS}/bindings`)).status).toBe(405);
  });
});

describe('discovery and OpenAPI', () => {
  test('legacy discovery lists the create subresources with their kinds', async () => {
    const resources = (await api.get('/api/v1')).body.resources as Record<string, unknown>[];
    const byName = (name: string) => resources.find((r) => r.name === name);
    expect(byName('pods/binding')).toEqual({ name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
    expect(byName('serviceaccounts/token')).toEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
    expect(byName('bindings')).toEqual({ name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });
  });

  test('aggregated discovery names their response kinds', async () => {
    const res = await api.get('/api', { accept: AGGREGATED });
    const resources = res.body.items[0].versions[0].resources as { resource: string; subresources?: unknown[] }[];
    const subs = (name: string) => resources.find((r) => r.resource === name)?.subresources;
    expect(subs('pods')).toEqual([
      { subresource: 'attach', responseKind: { group: '', version: 'v1', kind: 'PodAttachOptions' }, verbs: ['create', 'get'] },
      { subresource: 'binding', responseKind: { group: '', version: 'v1', kind: 'Binding' }, verbs: ['create'] },
      { subresource: 'ephemeralcontainers', responseKind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'eviction', responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] },
      { subresource: 'exec', responseKind: { group: '', version: 'v1', kind: 'PodExecOptions' }, verbs: ['create', 'get'] },
      { subresource: 'log', responseKind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get'] },
      { subresource: 'portforward', responseKind: { group: '', version: 'v1', kind: 'PodPortForwardOptions' }, verbs: ['create', 'get'] },
      { subresource: 'proxy', responseKind: { group: '', version: 'v1', kind: 'PodProxyOptions' }, verbs: ['create', 'delete', 'get', 'patch', 'update'] },
      { subresource: 'resize', responseKind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
    ]);
    expect(subs('serviceaccounts')).toEqual([
      { subresource: 'token', responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] },
    ]);
  });

  test('OpenAPI describes the POST operations with their kinds', async () => {
    const doc = (await api.get('/openapi/v3/api/v1')).body;
    const token = doc.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'];
    expect(Object.keys(token).sort()).toEqual(['parameters', 'post']);
    expect(token.post['x-kubernetes-group-version-kind']).toEqual({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
    expect(token.post.operationId).toBe('createCoreV1NamespacedServiceAccountToken');
    expect(doc.components.schemas['io.k8s.api.authentication.v1.TokenRequest']).toBeDefined();
    expect(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding'].post.operationId).toBe('createCoreV1NamespacedPodBinding');
  });
});

describe('serviceaccounts/token', () => {
  beforeAll(async () => {
    expect((await api.post(`${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } })).status).toBe(201);
  });

  test('a token with kube defaults: an hour, the API server audience, kube claims', async () => {
    const sa = (await api.get(`${NS}/serviceaccounts/bot`)).body;
    const before = Math.floor(Date.now() / 1000);
    const res = await api.post(`${NS}/serviceaccounts/bot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'bot', namespace: 'default', creationTimestamp: expect.any(String) },
      spec: { audiences: [API_AUDIENCE], expirationSeconds: 3600 },
      status: { token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), expirationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
    });
    const claims = claimsOf(res.body.status.token);
    expect(claims).toMatchObject({
      aud: [API_AUDIENCE],
      iss: API_AUDIENCE,
      sub: 'system:serviceaccount:default:bot',
      jti: expect.any(String),
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'bot', uid: sa.metadata.uid } },
    });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.nbf).toBe(claims.iat);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(Date.parse(res.body.status.expirationTimestamp) / 1000).toBe(claims.exp);
  });

  test('404 for a missing service account; 422 below ten minutes; 400 for an unbindable kind', async () => {
    const missing = await api.post(`${NS}/serviceaccounts/ghost/token`, { spec: {} });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('serviceaccounts "ghost" not found');
    const short = await api.post(`${NS}/serviceaccounts/bot/token`, { spec: { expirationSeconds: 60 } });
    expect(short.status).toBe(422);
    expect(short.body.message).toBe(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const cm = await api.post(`${NS}/serviceaccounts/bot/token`, { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'x' } } });
    expect(cm.status).toBe(400);
    expect(cm.body.message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');
  });

  test('a token bound to a secret names it, and stops authenticating once the secret goes', async () => {
    const secret = (await api.post(`${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'holder' } })).body;
    const res = await api.post(`${NS}/serviceaccounts/bot/token`, { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'holder' } } });
    expect(res.status).toBe(201);
    expect(claimsOf(res.body.status.token)['kubernetes.io'].secret).toEqual({ name: 'holder', uid: secret.metadata.uid });
    expect((await review(res.body.status.token)).body.status.authenticated).toBe(true);
    await api.delete(`${NS}/secrets/holder`);
    expect((await review(res.body.status.token)).body.status).toEqual({ user: {}, error: 'service account token has been invalidated' });
  });

  test('a TokenReview authenticates a token kapi issued', async () => {
    const sa = (await api.get(`${NS}/serviceaccounts/bot`)).body;
    const token = (await api.post(`${NS}/serviceaccounts/bot/token`, { spec: {} })).body.status.token;
    const res = await review(token);
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({
      authenticated: true,
      user: {
        username: 'system:serviceaccount:default:bot',
        uid: sa.metadata.uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claimsOf(token).jti}`] },
      },
      audiences: [API_AUDIENCE],
    });
  });

  test('audiences are intersected with those the review asks for', async () => {
    const token = (await api.post(`${NS}/serviceaccounts/bot/token`, { spec: { audiences: ['x', 'y'] } })).body.status.token;
    const asked = await review(token, ['y', 'z']);
    expect(asked.body.status).toMatchObject({ authenticated: true, audiences: ['y'] });
    const implicit = await review(token);
    expect(implicit.body.status).toEqual({ user: {}, error: `token audiences ["x" "y"] is invalid for the target audiences ["${API_AUDIENCE}"]` });
  });

  test('a tampered token is not authenticated', async () => {
    const token: string = (await api.post(`${NS}/serviceaccounts/bot/token`, { spec: {} })).body.status.token;
    const [header, , sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claimsOf(token), sub: 'system:serviceaccount:default:admin' })).toString('base64url');
    const res = await review(`${header}.${forged}.${sig}`);
    expect(res.body.status).toEqual({ user: {}, error: 'invalid bearer token, invalid signature' });
    expect((await review('not-a-jwt')).body.status.authenticated).toBeUndefined();
  });

  test('the token of a deleted and re-created service account is not authenticated', async () => {
    await api.post(`${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'phoenix' } });
    const token = (await api.post(`${NS}/serviceaccounts/phoenix/token`, { spec: {} })).body.status.token;
    const oldUid = claimsOf(token)['kubernetes.io'].serviceaccount.uid;
    await api.delete(`${NS}/serviceaccounts/phoenix`);
    expect((await review(token)).body.status.error).toBe('service account token has been invalidated');
    const again = (await api.post(`${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'phoenix' } })).body;
    expect((await review(token)).body.status).toEqual({ user: {}, error: `service account UID (${again.metadata.uid}) does not match claim (${oldUid})` });
  });

  test('the signing key is a file of the data directory, so a kapi restarted on it verifies earlier tokens', async () => {
    const token = (await api.post(`${NS}/serviceaccounts/bot/token`, { spec: {} })).body.status.token;
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({ alg: 'ES256', kid: expect.stringMatching(/^[\w-]{43}$/) });
    expect(readFileSync(path.join(server.dataDir, 'pki', 'sa.key'), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const restarted = await startTestServer({ etcdPrefix: server.prefix, dataDir: server.dataDir });
    try {
      const res = await new Api(restarted.url).post(`${AUTHN}/tokenreviews`, { spec: { token } });
      expect(res.body.status.authenticated).toBe(true);
    } finally {
      await restarted.close();
    }
    const elsewhere = await startTestServer({ etcdPrefix: server.prefix });
    try {
      const res = await new Api(elsewhere.url).post(`${AUTHN}/tokenreviews`, { spec: { token } });
      expect(res.body.status).toEqual({ user: {}, error: 'invalid bearer token, invalid signature' });
    } finally {
      await elsewhere.close();
    }
  });

  test('Protobuf request and response, as kubectl create token sends them', async () => {
    const body = encodeProtobuf({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { creationTimestamp: null },
      spec: { audiences: null, expirationSeconds: 1200, boundObjectRef: null },
      status: { token: '', expirationTimestamp: null },
    } as never);
    const res = await fetch(`${server.url}${NS}/serviceaccounts/bot/token`, {
      method: 'POST',
      headers: { 'Content-Type': PROTOBUF, Accept: `${PROTOBUF}, application/json`, 'User-Agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc' },
      body,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe(PROTOBUF);
    const answer = decodeProtobuf(Buffer.from(await res.arrayBuffer()));
    expect(answer).toMatchObject({ kind: 'TokenRequest', spec: { audiences: [API_AUDIENCE], expirationSeconds: 1200 }, status: { token: expect.any(String) } });
    const token = (answer.status as { token: string }).token;
    expect((await review(token)).body.status.authenticated).toBe(true);

    // An aggregated API server's delegating authenticator reviews tokens in Protobuf: the user's extra (map<string, ExtraValue>) must survive both ways.
    const reviewed = await fetch(`${server.url}${AUTHN}/tokenreviews`, {
      method: 'POST',
      headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      body: encodeProtobuf({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token } } as never),
    });
    expect(reviewed.status).toBe(201);
    const user = (decodeProtobuf(Buffer.from(await reviewed.arrayBuffer())).status as { user: Record<string, unknown> }).user;
    expect(user).toMatchObject({
      username: 'system:serviceaccount:default:bot',
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claimsOf(token).jti}`] },
    });
  });
});
