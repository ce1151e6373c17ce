import { startSecureKapi, type SecureKapi } from '../harness/secure-process';
import { httpsRequest } from '../harness/tls';

// kube's bootstrap policy lets every service account read the issuer discovery documents
// (system:service-account-issuer-discovery, bound to system:serviceaccounts), so that a workload
// can verify tokens of its own cluster; other users and anonymous requests are refused.

const ALICE = 'alice-token-d15c0very';
let kapi: SecureKapi;
const DISCOVERY = ['/.well-known/openid-configuration', '/openid/v1/jwks'];

beforeAll(async () => {
  kapi = await startSecureKapi([`${ALICE},alice,uid-alice`]);
});
afterAll(async () => {
  await kapi?.stop();
});

test("the ClusterRole and its binding are kube's bootstrap objects", async () => {
  const role = (await kapi.asAdmin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:service-account-issuer-discovery')).body;
  expect(role.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
  expect(role.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
  expect(role.rules).toEqual([{ verbs: ['get'], nonResourceURLs: DISCOVERY }]);
  const binding = (await kapi.asAdmin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:service-account-issuer-discovery')).body;
  expect(binding.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
  expect(binding.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
  expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:service-account-issuer-discovery' });
  expect(binding.subjects).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts' }]);
});

test('a service account token reads the discovery document and the keys; another user and anonymous requests get 403', async () => {
  expect((await kapi.asAdmin('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'verifier' } })).status).toBe(201);
  const issued = await kapi.asAdmin('POST', '/api/v1/namespaces/default/serviceaccounts/verifier/token', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {},
  });
  expect(issued.status).toBe(201);
  const token: string = issued.body.status.token;
  const config = await kapi.asToken(token, 'GET', DISCOVERY[0]);
  expect(config.status).toBe(200);
  expect(config.body.jwks_uri).toMatch(/\/openid\/v1\/jwks$/);
  const keys = await kapi.asToken(token, 'GET', DISCOVERY[1]);
  expect([keys.status, keys.body.keys.length > 0]).toEqual([200, true]);
  for (const path of DISCOVERY) {
    const alice = await kapi.asToken(ALICE, 'GET', path);
    expect(alice.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `forbidden: User "alice" cannot get path "${path}"`,
      reason: 'Forbidden',
      details: {},
      code: 403,
    });
    expect((await httpsRequest(`${kapi.process.secureUrl}${path}`, { ca: kapi.ca })).status).toBe(403);
  }
});
