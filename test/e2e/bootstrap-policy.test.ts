import { startSecureKapi, type SecureKapi } from '../harness/secure-process';

// The bootstrap roles extension API servers bind to (metrics-server, prometheus-adapter, KEDA):
// system:auth-delegator and kube-system's extension-apiserver-authentication-reader, with kube's
// rules, labels and annotations; metrics-server's own RBAC manifests bound to them and checked
// with SubjectAccessReviews.

let kapi: SecureKapi;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const BOOTSTRAP = { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } };

beforeAll(async () => {
  kapi = await startSecureKapi(['unused-token-b007,nobody,uid-nobody']);
});
afterAll(async () => {
  await kapi?.stop();
});

test("system:auth-delegator and extension-apiserver-authentication-reader are kube's, and so is the reader's binding", async () => {
  const delegator = (await kapi.asAdmin('GET', `${RBAC}/clusterroles/system:auth-delegator`)).body;
  expect(delegator.metadata).toMatchObject(BOOTSTRAP);
  expect(delegator.rules).toEqual([
    { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  ]);
  const reader = (await kapi.asAdmin('GET', `${RBAC}/namespaces/kube-system/roles/extension-apiserver-authentication-reader`)).body;
  expect(reader.metadata).toMatchObject(BOOTSTRAP);
  expect(reader.rules).toEqual([
    { apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'], verbs: ['get', 'list', 'watch'] },
  ]);
  const binding = (await kapi.asAdmin('GET', `${RBAC}/namespaces/kube-system/rolebindings/system::extension-apiserver-authentication-reader`)).body;
  expect(binding.metadata).toMatchObject(BOOTSTRAP);
  expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' });
  expect(binding.subjects).toEqual([
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:kube-controller-manager' },
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:kube-scheduler' },
  ]);
  const leaderLocking = await kapi.asAdmin('GET', `${RBAC}/namespaces/kube-system/rolebindings/system::leader-locking-kube-scheduler`);
  expect(leaderLocking.body.subjects).toEqual([
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:kube-scheduler' },
    { kind: 'ServiceAccount', name: 'kube-scheduler', namespace: 'kube-system' },
  ]);
});

test("metrics-server's RBAC manifests bind to them, and SubjectAccessReviews allow what it needs and nothing else", async () => {
  const sa = { kind: 'ServiceAccount', name: 'metrics-server', namespace: 'kube-system' };
  expect((await kapi.asAdmin('POST', '/api/v1/namespaces/kube-system/serviceaccounts', { metadata: { name: 'metrics-server' } })).status).toBe(201);
  expect(
    (
      await kapi.asAdmin('POST', `${RBAC}/namespaces/kube-system/rolebindings`, {
        metadata: { name: 'metrics-server-auth-reader', labels: { 'k8s-app': 'metrics-server' } },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
        subjects: [sa],
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await kapi.asAdmin('POST', `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'metrics-server:system:auth-delegator', labels: { 'k8s-app': 'metrics-server' } },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
        subjects: [sa],
      })
    ).status,
  ).toBe(201);
  const allowed = async (resourceAttributes: Record<string, string>) => {
    const res = await kapi.asAdmin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'system:serviceaccount:kube-system:metrics-server',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
        resourceAttributes,
      },
    });
    expect(res.status).toBe(201);
    return res.body.status.allowed as boolean;
  };
  const cases: [Record<string, string>, boolean][] = [
    [{ namespace: 'kube-system', verb: 'get', resource: 'configmaps', name: 'extension-apiserver-authentication' }, true],
    [{ namespace: 'kube-system', verb: 'watch', resource: 'configmaps', name: 'extension-apiserver-authentication' }, true],
    [{ verb: 'create', group: 'authentication.k8s.io', resource: 'tokenreviews' }, true],
    [{ verb: 'create', group: 'authorization.k8s.io', resource: 'subjectaccessreviews' }, true],
    [{ namespace: 'kube-system', verb: 'get', resource: 'configmaps', name: 'kubeadm-config' }, false],
    [{ namespace: 'kube-system', verb: 'get', resource: 'secrets', name: 'extension-apiserver-authentication' }, false],
  ];
  for (const [attributes, expected] of cases) {
    let got = await allowed(attributes);
    // RBAC reads bindings from a cache: the new ones arrive within moments.
    for (let i = 0; i < 50 && got !== expected && expected; i++) {
      await new Promise((r) => setTimeout(r, 100));
      got = await allowed(attributes);
    }
    expect([attributes, got]).toEqual([attributes, expected]);
  }
});
