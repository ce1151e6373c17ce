import { decodeProtobuf } from '../../src/codec/protobuf';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const AUTHZ = '/apis/authorization.k8s.io/v1';
const AUTHN = '/apis/authentication.k8s.io/v1';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const ssar = (spec: unknown, metadata: unknown = { creationTimestamp: null }) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  metadata,
  spec,
});

describe('SelfSubjectAccessReview', () => {
  test('is answered for the requester (the insecure port is in system:masters) and echoes the request, with the request recorded in managedFields', async () => {
    const spec = { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } };
    const res = await api.post(`${AUTHZ}/selfsubjectaccessreviews?fieldManager=tester`, ssar(spec));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec, status: { allowed: true } });
    expect(Object.keys(res.body)).toEqual(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
    const { managedFields, ...meta } = res.body.metadata;
    expect(meta).toEqual({ creationTimestamp: null });
    expect(managedFields).toEqual([
      expect.objectContaining({
        manager: 'tester',
        operation: 'Update',
        fieldsV1: { 'f:spec': expect.objectContaining({ 'f:resourceAttributes': { '.': {}, 'f:namespace': {}, 'f:resource': {}, 'f:verb': {} } }) },
      }),
    ]);
  });

  test('non-resource attributes, dryRun and fieldValidation are accepted', async () => {
    const res = await api.post(
      `${AUTHZ}/selfsubjectaccessreviews?dryRun=All&fieldValidation=Strict`,
      ssar({ nonResourceAttributes: { path: '/logs', verb: 'get' } }),
    );
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ allowed: true });
  });

  test('neither or both attributes: 422 with kube-apiserver messages', async () => {
    const neither = await api.post(`${AUTHZ}/selfsubjectaccessreviews`, ssar({}));
    expect(neither.status).toBe(422);
    expect(neither.body).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      message:
        '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      details: { group: 'authorization.k8s.io', causes: [{ reason: 'FieldValueInvalid', field: 'spec.resourceAttributes' }] },
    });
    const both = await api.post(
      `${AUTHZ}/selfsubjectaccessreviews`,
      ssar({ resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/', verb: 'get' } }),
    );
    expect(both.status).toBe(422);
    expect(both.body.message).toBe(
      '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: {"path":"/","verb":"get"}: cannot be specified in combination with resourceAttributes',
    );
  });

  test('metadata must be empty; selectors need requirements or a raw selector', async () => {
    const named = await api.post(`${AUTHZ}/selfsubjectaccessreviews`, ssar({ resourceAttributes: { verb: 'get' } }, { name: 'x' }));
    expect(named.status).toBe(422);
    // The value shown is the whole metadata, managedFields included, as kube-apiserver shows it.
    expect(named.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata', message: expect.stringMatching(/^Invalid value: \{"name":"x",.*: must be empty$/) },
    ]);
    const selector = await api.post(`${AUTHZ}/selfsubjectaccessreviews`, ssar({ resourceAttributes: { verb: 'list', labelSelector: {} } }));
    expect(selector.status).toBe(422);
    expect(selector.body.details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        field: 'spec.resourceAttributes.labelSelector.requirements',
        message: 'Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required',
      },
    ]);
  });
});

describe('SubjectAccessReview and LocalSubjectAccessReview', () => {
  test('a SubjectAccessReview names a user or a group', async () => {
    const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } };
    const missing = await api.post(`${AUTHZ}/subjectaccessreviews`, body);
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe('.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
    const ok = await api.post(`${AUTHZ}/subjectaccessreviews`, { ...body, spec: { ...body.spec, groups: ['devs'] } });
    expect(ok.status).toBe(201);
    // Nothing grants the group "devs" anything: denied without a reason, as RBAC answers.
    expect(ok.body.status).toEqual({ allowed: false });
    const masters = await api.post(`${AUTHZ}/subjectaccessreviews`, { ...body, spec: { ...body.spec, groups: ['system:masters'] } });
    expect(masters.body.status).toEqual({ allowed: true });
  });

  const lsar = (namespace: string, metadata: Record<string, unknown> = {}) => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'LocalSubjectAccessReview',
    metadata,
    spec: { user: 'bob', resourceAttributes: { namespace, verb: 'get', resource: 'pods' } },
  });

  test('is answered in any namespace, existing or not, and takes the URL namespace', async () => {
    const res = await api.post('/apis/authorization.k8s.io/v1/namespaces/no-such-namespace/localsubjectaccessreviews', lsar('no-such-namespace'));
    expect(res.status).toBe(201);
    expect(res.body.metadata).toMatchObject({ namespace: 'no-such-namespace', creationTimestamp: null });
    expect(res.body.status).toEqual({ allowed: false });
  });

  test('namespace mismatches: the spec 422, the metadata 400', async () => {
    const spec = await api.post(`${AUTHZ}/namespaces/default/localsubjectaccessreviews`, lsar('other'));
    expect(spec.status).toBe(422);
    expect(spec.body.message).toBe(
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
    );
    const meta = await api.post(`${AUTHZ}/namespaces/default/localsubjectaccessreviews`, lsar('other', { namespace: 'other' }));
    expect(meta.status).toBe(400);
    expect(meta.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });

  test('non-resource attributes are refused', async () => {
    const body = { ...lsar('default'), spec: { user: 'bob', nonResourceAttributes: { path: '/healthz', verb: 'get' } } };
    const res = await api.post(`${AUTHZ}/namespaces/default/localsubjectaccessreviews`, body);
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.nonResourceAttributes',
        message: 'Invalid value: {"path":"/healthz","verb":"get"}: disallowed on this kind of request',
      },
    ]);
  });
});

test("SelfSubjectRulesReview: the requester's rules from its bindings, nothing echoed", async () => {
  const res = await api.post(`${AUTHZ}/selfsubjectrulesreviews`, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    spec: { namespace: 'default' },
  });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({
    kind: 'SelfSubjectRulesReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: {},
    // cluster-admin (system:masters), then system:basic-user, system:discovery and
    // system:public-info-viewer (system:authenticated), in the order of their bindings.
    status: {
      resourceRules: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
        { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
      ],
      nonResourceRules: [
        { verbs: ['*'], nonResourceURLs: ['*'] },
        {
          verbs: ['get'],
          nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
        },
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
      ],
      incomplete: false,
    },
  });
  const noNamespace = await api.post(`${AUTHZ}/selfsubjectrulesreviews`, { spec: {} });
  expect(noNamespace.status).toBe(400);
  expect(noNamespace.body.message).toBe('no namespace on request');
});

test('SelfSubjectReview: the insecure port user', async () => {
  const res = await api.post(`${AUTHN}/selfsubjectreviews`, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
    status: { userInfo: { username: 'system:unsecured', groups: ['system:masters', 'system:authenticated'] } },
  });
});

test('TokenReview: a token kapi did not issue is not authenticated', async () => {
  const res = await api.post(`${AUTHN}/tokenreviews`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'abc' } });
  expect(res.status).toBe(201);
  expect(res.body.spec).toEqual({ token: 'abc' });
  expect(res.body.status).toEqual({ user: {}, error: 'invalid bearer token' });
  const empty = await api.post(`${AUTHN}/tokenreviews`, { spec: {} });
  expect(empty.status).toBe(400);
  expect(empty.body.message).toBe('token is required for TokenReview in authentication');
});

describe('verbs other than create', () => {
  test.each([
    ['GET', `${AUTHZ}/selfsubjectaccessreviews`],
    ['GET', `${AUTHZ}/selfsubjectaccessreviews?watch=true`],
    ['DELETE', `${AUTHZ}/selfsubjectaccessreviews`],
    ['GET', `${AUTHN}/selfsubjectreviews`],
    ['GET', `${AUTHZ}/namespaces/default/localsubjectaccessreviews`],
  ])('%s %s is 405 MethodNotAllowed', async (method, path) => {
    const res = await api.request(method, path);
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'MethodNotAllowed',
      code: 405,
      message: 'the server does not allow this method on the requested resource',
    });
  });

  test.each([
    ['GET', `${AUTHZ}/selfsubjectaccessreviews/x`],
    ['DELETE', `${AUTHZ}/selfsubjectaccessreviews/x`],
  ])('%s %s: a create-only resource has no object paths (404)', async (method, path) => {
    const res = await api.request(method, path);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  test('nothing is written to etcd', async () => {
    await api.post(`${AUTHZ}/selfsubjectaccessreviews`, ssar({ resourceAttributes: { verb: 'get' } }));
    const metrics = (await api.get('/metrics')).text;
    expect(metrics).not.toMatch(/apiserver_storage_objects\{resource="selfsubjectaccessreviews/);
  });
});

describe('discovery and OpenAPI', () => {
  test('legacy discovery lists the reviews with verbs ["create"] and no storage version', async () => {
    const authz = await api.get(AUTHZ);
    expect(authz.body.resources).toEqual([
      { name: 'localsubjectaccessreviews', singularName: 'localsubjectaccessreview', namespaced: true, kind: 'LocalSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
      { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
    ]);
    const authn = await api.get(AUTHN);
    expect(authn.body.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs])).toEqual([
      ['selfsubjectreviews', ['create']],
      ['tokenreviews', ['create']],
    ]);
    const groups = (await api.get('/apis')).body.groups.map((g: { name: string }) => g.name);
    expect(groups).toEqual(expect.arrayContaining(['authorization.k8s.io', 'authentication.k8s.io']));
    expect((await api.get('/apis/authorization.k8s.io')).body).toMatchObject({
      kind: 'APIGroup',
      preferredVersion: { groupVersion: 'authorization.k8s.io/v1' },
    });
  });

  test('aggregated discovery', async () => {
    const res = await api.get('/apis', { accept: AGGREGATED });
    const group = res.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'authorization.k8s.io');
    const ssarEntry = group.versions[0].resources.find((r: { resource: string }) => r.resource === 'selfsubjectaccessreviews');
    expect(ssarEntry).toEqual({
      resource: 'selfsubjectaccessreviews',
      responseKind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' },
      scope: 'Cluster',
      singularResource: 'selfsubjectaccessreview',
      verbs: ['create'],
    });
  });

  test('OpenAPI v3 has the create operation and the schemas, and no list', async () => {
    const doc = (await api.get('/openapi/v3/apis/authorization.k8s.io/v1')).body;
    expect(Object.keys(doc.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'])).toEqual(['parameters', 'post']);
    expect(doc.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'].post.operationId).toBe('createAuthorizationV1SelfSubjectAccessReview');
    expect(doc.components.schemas['io.k8s.api.authorization.v1.SubjectAccessReviewStatus'].required).toEqual(['allowed']);
    expect(doc.components.schemas['io.k8s.api.authorization.v1.SelfSubjectAccessReviewList']).toBeUndefined();
    const v2 = (await api.get('/openapi/v2')).body;
    expect(v2.paths['/apis/authentication.k8s.io/v1/selfsubjectreviews'].post).toBeDefined();
  });
});

test('Protobuf request and response, as kubectl sends them', async () => {
  const body = encodeProtobuf(ssar({ resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } }, {}));
  const res = await fetch(`${server.url}${AUTHZ}/selfsubjectaccessreviews`, {
    method: 'POST',
    headers: { 'Content-Type': PROTOBUF, Accept: `${PROTOBUF}, application/json`, 'User-Agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc' },
    body,
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('content-type')).toBe(PROTOBUF);
  const answer = decodeProtobuf(Buffer.from(await res.arrayBuffer()));
  expect(answer).toMatchObject({
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { managedFields: [expect.objectContaining({ manager: 'kubectl', operation: 'Update' })] },
    spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } },
    status: { allowed: true },
  });
});
