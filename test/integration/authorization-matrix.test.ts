import { Api } from '../harness/http';
import { eventually } from '../harness/etcd-keys';
import { startTestServer } from '../harness/server';

/**
 * RBAC decisions seen from outside: the insecure port's superuser (system:masters) impersonates
 * each user, sends real requests, and a 403 Forbidden is a refusal; anything else got past
 * authorization. The same questions asked through SubjectAccessReview must agree.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

interface Who {
  user: string;
  /** One group sent as Impersonate-Group; the server adds system:authenticated. */
  group?: string;
}

const ALICE: Who = { user: 'alice' };
const BOB: Who = { user: 'bob' };
const CAROL: Who = { user: 'carol' };
const DAVE: Who = { user: 'dave', group: 'auditors' };
const ROBOT: Who = { user: 'system:serviceaccount:ns1:robot' };
const FRANK: Who = { user: 'frank' };
const NOBODY: Who = { user: 'nobody' };

/** The groups the impersonation filter gives each user, for the equivalent SubjectAccessReview. */
function groupsOf(who: Who): string[] {
  if (who.user.startsWith('system:serviceaccount:')) return ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'];
  return [...(who.group ? [who.group] : []), 'system:authenticated'];
}

function impersonating(who: Who): Record<string, string> {
  const headers: Record<string, string> = { 'Impersonate-User': who.user };
  if (who.group) headers['Impersonate-Group'] = who.group;
  return headers;
}

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

interface ResourceCase {
  kind: 'resource';
  verb: Verb;
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  namespace: string;
  name?: string;
}

interface PathCase {
  kind: 'path';
  path: string;
}

type Case = ResourceCase | PathCase;

function collectionPath(c: ResourceCase): string {
  const root = c.group ? `/apis/${c.group}/${c.version}` : `/api/${c.version}`;
  if (c.resource === 'namespaces') return `${root}/namespaces`;
  return c.namespace ? `${root}/namespaces/${c.namespace}/${c.resource}` : `${root}/${c.resource}`;
}

function itemPath(c: ResourceCase): string {
  return `${collectionPath(c)}/${c.name}${c.subresource ? `/${c.subresource}` : ''}`;
}

/** Sends the case as the user would; writes are dry runs, which need exactly what the real write needs. */
async function send(who: Who, c: Case): Promise<{ status: number; body: any }> {
  const headers = impersonating(who);
  if (c.kind === 'path') return api.get(c.path, { headers });
  switch (c.verb) {
    case 'get':
      return api.get(itemPath(c), { headers });
    case 'list':
      return api.get(collectionPath(c), { headers });
    case 'watch': {
      const abort = new AbortController();
      const res = await fetch(`${server.url}${collectionPath(c)}?watch=1`, { headers, signal: abort.signal });
      const body = res.status === 403 ? await res.json() : null;
      abort.abort();
      return { status: res.status, body };
    }
    case 'create':
      return api.post(`${collectionPath(c)}?dryRun=All`, { metadata: { name: 'x' } }, { headers });
    case 'update':
      return api.put(`${itemPath(c)}?dryRun=All`, { metadata: { name: c.name } }, { headers });
    case 'patch':
      return api.patch(`${itemPath(c)}?dryRun=All`, {}, 'application/merge-patch+json', { headers });
    case 'delete':
      return api.delete(`${itemPath(c)}?dryRun=All`, { headers });
    case 'deletecollection':
      return api.delete(`${collectionPath(c)}?dryRun=All`, { headers });
  }
}

async function reviewAllows(who: Who, c: Case): Promise<boolean> {
  const spec: Record<string, unknown> = { user: who.user, groups: groupsOf(who) };
  if (c.kind === 'path') spec.nonResourceAttributes = { path: c.path, verb: 'get' };
  else {
    spec.resourceAttributes = {
      namespace: c.resource === 'namespaces' ? c.name : c.namespace,
      verb: c.verb,
      group: c.group,
      version: c.version,
      resource: c.resource,
      subresource: c.subresource ?? '',
      name: c.name ?? '',
    };
  }
  const res = await api.post('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec,
  });
  expect(res.status).toBe(201);
  return res.body.status.allowed;
}

const core = (verb: Verb, resource: string, namespace: string, name?: string, subresource?: string): ResourceCase => ({
  kind: 'resource',
  verb,
  group: '',
  version: 'v1',
  resource,
  namespace,
  name,
  subresource,
});
const apps = (verb: Verb, resource: string, namespace: string, name?: string, subresource?: string): ResourceCase => ({
  ...core(verb, resource, namespace, name, subresource),
  group: 'apps',
});

function namespacedCases(ns: string): ResourceCase[] {
  return [
    core('get', 'pods', ns, 'p1'),
    core('list', 'pods', ns),
    core('watch', 'pods', ns),
    core('create', 'pods', ns),
    core('delete', 'pods', ns, 'p1'),
    core('deletecollection', 'pods', ns),
    core('get', 'pods', ns, 'p1', 'status'),
    core('patch', 'pods', ns, 'p1', 'status'),
    core('get', 'configmaps', ns, 'allowed'),
    core('get', 'configmaps', ns, 'other'),
    core('list', 'configmaps', ns),
    core('update', 'configmaps', ns, 'allowed'),
    core('delete', 'configmaps', ns, 'allowed'),
    core('create', 'secrets', ns),
    core('list', 'secrets', ns),
    apps('get', 'deployments', ns, 'd1'),
    apps('list', 'deployments', ns),
    apps('update', 'deployments', ns, 'd1'),
    apps('get', 'deployments', ns, 'd1', 'scale'),
    apps('patch', 'deployments', ns, 'd1', 'scale'),
    apps('get', 'deployments', ns, 'd1', 'status'),
  ];
}

const CASES: Case[] = [
  ...namespacedCases('ns1'),
  ...namespacedCases('ns2'),
  core('list', 'nodes', ''),
  core('get', 'namespaces', '', 'ns2'),
  core('list', 'pods', ''),
  ...['/metrics', '/openapi/v2', '/healthz', '/version', '/api', '/logs/kapi.log'].map((path): PathCase => ({ kind: 'path', path })),
];

/** What every authenticated user may read: system:discovery and system:public-info-viewer. */
const PUBLIC_PATHS = ['/openapi/v2', '/healthz', '/version', '/api'];

const only = (c: Case, verbs: Verb[]): boolean => c.kind === 'resource' && verbs.includes(c.verb);

/** The decisions the bindings made in beforeAll must give, written out by hand. */
const EXPECTED: [Who, (c: Case) => boolean][] = [
  // Role pod-reader in ns1: get, list, watch pods (not their subresources).
  [
    ALICE,
    (c) =>
      c.kind === 'path' ? PUBLIC_PATHS.includes(c.path) : c.namespace === 'ns1' && c.resource === 'pods' && !c.subresource && only(c, ['get', 'list', 'watch']),
  ],
  // ClusterRole scaler everywhere: deployments/scale get, update, patch; deployments get.
  [
    BOB,
    (c) =>
      c.kind === 'path'
        ? PUBLIC_PATHS.includes(c.path)
        : c.group === 'apps' &&
          c.resource === 'deployments' &&
          ((c.subresource === 'scale' && only(c, ['get', 'update', 'patch'])) || (!c.subresource && c.verb === 'get')),
  ],
  // ClusterRole cm-named bound in ns1: configmaps named "allowed" only (a list names no object).
  [
    CAROL,
    (c) =>
      c.kind === 'path'
        ? PUBLIC_PATHS.includes(c.path)
        : c.namespace === 'ns1' && c.resource === 'configmaps' && c.name === 'allowed' && only(c, ['get', 'update', 'patch', 'delete']),
  ],
  // Group auditors: /metrics and /logs/*, and every */status for get.
  [DAVE, (c) => (c.kind === 'path' ? [...PUBLIC_PATHS, '/metrics', '/logs/kapi.log'].includes(c.path) : c.subresource === 'status' && c.verb === 'get')],
  // A service account bound in ns1 by a ServiceAccount subject: create and list secrets.
  [ROBOT, (c) => (c.kind === 'path' ? PUBLIC_PATHS.includes(c.path) : c.namespace === 'ns1' && c.resource === 'secrets' && only(c, ['create', 'list']))],
  // ClusterRole wildcard bound in ns2: everything there, the namespace ns2 itself included, nothing else.
  [FRANK, (c) => (c.kind === 'path' ? PUBLIC_PATHS.includes(c.path) : c.namespace === 'ns2' || (c.resource === 'namespaces' && c.name === 'ns2'))],
  [NOBODY, (c) => c.kind === 'path' && PUBLIC_PATHS.includes(c.path)],
];

const role = (kind: 'Role' | 'ClusterRole', name: string, rules: unknown[], namespace?: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  rules,
});

const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  roleRef: { kind: string; name: string },
  subjects: unknown[],
  namespace?: string,
) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
  subjects,
});

const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });

async function created(path: string, body: unknown): Promise<void> {
  const res = await api.post(path, body);
  expect([res.status, res.body.message]).toEqual([201, undefined]);
}

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  for (const ns of ['ns1', 'ns2']) await created('/api/v1/namespaces', { metadata: { name: ns } });
  await created(`${RBAC}/namespaces/ns1/roles`, role('Role', 'pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }], 'ns1'));
  await created(`${RBAC}/namespaces/ns1/rolebindings`, binding('RoleBinding', 'alice-reads', { kind: 'Role', name: 'pod-reader' }, [user('alice')], 'ns1'));
  await created(
    `${RBAC}/clusterroles`,
    role('ClusterRole', 'scaler', [
      { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get', 'update', 'patch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },
    ]),
  );
  await created(`${RBAC}/clusterrolebindings`, binding('ClusterRoleBinding', 'bob-scales', { kind: 'ClusterRole', name: 'scaler' }, [user('bob')]));
  await created(
    `${RBAC}/clusterroles`,
    role('ClusterRole', 'cm-named', [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['allowed'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete'] },
    ]),
  );
  await created(`${RBAC}/namespaces/ns1/rolebindings`, binding('RoleBinding', 'carol-cm', { kind: 'ClusterRole', name: 'cm-named' }, [user('carol')], 'ns1'));
  await created(
    `${RBAC}/clusterroles`,
    role('ClusterRole', 'watcher', [
      { nonResourceURLs: ['/metrics', '/logs/*'], verbs: ['get'] },
      { apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] },
    ]),
  );
  await created(
    `${RBAC}/clusterrolebindings`,
    binding('ClusterRoleBinding', 'auditors-watch', { kind: 'ClusterRole', name: 'watcher' }, [
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'auditors' },
    ]),
  );
  await created(`${RBAC}/namespaces/ns1/roles`, role('Role', 'secret-maker', [{ apiGroups: [''], resources: ['secrets'], verbs: ['create', 'list'] }], 'ns1'));
  await created(
    `${RBAC}/namespaces/ns1/rolebindings`,
    binding('RoleBinding', 'robot-secrets', { kind: 'Role', name: 'secret-maker' }, [{ kind: 'ServiceAccount', name: 'robot', namespace: 'ns1' }], 'ns1'),
  );
  await created(`${RBAC}/clusterroles`, role('ClusterRole', 'wildcard', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
  await created(`${RBAC}/namespaces/ns2/rolebindings`, binding('RoleBinding', 'frank-all', { kind: 'ClusterRole', name: 'wildcard' }, [user('frank')], 'ns2'));
  // The authorizer reads a cache fed by watches: wait until the last binding is seen.
  await eventually('frank bound in ns2', async () => ((await reviewAllows(FRANK, core('list', 'pods', 'ns2'))) ? true : undefined));
});

afterAll(async () => {
  await server.close();
});

describe.each(EXPECTED.map(([who, expected]) => [who.user, who, expected] as const))('%s', (_name, who, expected) => {
  test(`${CASES.length} requests get the expected decisions, and SubjectAccessReview agrees`, async () => {
    const mismatches: string[] = [];
    for (const c of CASES) {
      const want = expected(c);
      const res = await send(who, c);
      const forbidden = res.status === 403;
      if (forbidden) expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
      const reviewed = await reviewAllows(who, c);
      const what =
        c.kind === 'path' ? `GET ${c.path}` : `${c.verb} ${c.resource}${c.subresource ? `/${c.subresource}` : ''} ${c.name ?? ''} in "${c.namespace}"`;
      if (forbidden === want) mismatches.push(`${what}: expected ${want ? 'allowed' : 'forbidden'}, request got ${res.status}`);
      if (reviewed !== want) mismatches.push(`${what}: expected ${want ? 'allowed' : 'forbidden'}, SubjectAccessReview said allowed=${reviewed}`);
    }
    expect(mismatches).toEqual([]);
  });
});

test('the matrix has at least 100 cases', () => {
  expect(CASES.length * EXPECTED.length).toBeGreaterThanOrEqual(100);
});

describe("refusals read as kube-apiserver's", () => {
  test('a namespaced list', async () => {
    const res = await send(ALICE, core('list', 'pods', 'ns2'));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns2"',
      reason: 'Forbidden',
      details: { kind: 'pods' },
      code: 403,
    });
  });

  test('a named subresource, a cluster-scoped list, a path', async () => {
    const scale = await send(ALICE, apps('get', 'deployments', 'ns1', 'd1', 'scale'));
    expect(scale.body).toMatchObject({
      message: 'deployments.apps "d1" is forbidden: User "alice" cannot get resource "deployments/scale" in API group "apps" in the namespace "ns1"',
      details: { name: 'd1', group: 'apps', kind: 'deployments' },
    });
    const nodes = await send(ALICE, core('list', 'nodes', ''));
    expect(nodes.body.message).toBe('nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope');
    const metrics = await send(ALICE, { kind: 'path', path: '/metrics' });
    expect(metrics.status).toBe(403);
    expect(metrics.body).toMatchObject({ message: 'forbidden: User "alice" cannot get path "/metrics"', details: {} });
  });

  test('a list or watch naming one object by field selector is checked against resourceNames', async () => {
    const C = '/api/v1/namespaces/ns1/configmaps';
    const one = await api.get(`${C}?fieldSelector=metadata.name%3Dallowed`, { headers: impersonating(CAROL) });
    expect([one.status, one.body.message]).toEqual([200, undefined]);
    const abort = new AbortController();
    const watch = await fetch(`${server.url}${C}?watch=1&fieldSelector=metadata.name%3D%3Dallowed`, { headers: impersonating(CAROL), signal: abort.signal });
    abort.abort();
    expect(watch.status).toBe(200);
    const other = await api.get(`${C}?fieldSelector=metadata.name%3Dother`, { headers: impersonating(CAROL) });
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('configmaps "other" is forbidden: User "carol" cannot list resource "configmaps" in API group "" in the namespace "ns1"');
    expect((await api.get(`${C}?fieldSelector=metadata.name!%3Dallowed`, { headers: impersonating(CAROL) })).status).toBe(403);
  });

  test('a dry run is refused exactly as the real request', async () => {
    const dry = await api.post('/api/v1/namespaces/ns1/pods?dryRun=All', { metadata: { name: 'p' } }, { headers: impersonating(ALICE) });
    const real = await api.post('/api/v1/namespaces/ns1/pods', { metadata: { name: 'p' } }, { headers: impersonating(ALICE) });
    expect([dry.status, dry.body.message]).toEqual([
      403,
      'pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "ns1"',
    ]);
    expect(real.body).toEqual(dry.body);
  });

  test('a binding to a role that does not exist: RBAC gives the reason', async () => {
    await created(`${RBAC}/namespaces/ns1/rolebindings`, binding('RoleBinding', 'ghost', { kind: 'Role', name: 'ghost-role' }, [user('gina')], 'ns1'));
    const res = await eventually('the ghost binding seen', async () => {
      const r = await send({ user: 'gina' }, core('list', 'pods', 'ns1'));
      return r.body.message?.includes('ghost-role') ? r : undefined;
    });
    expect(res.body.message).toBe(
      'pods is forbidden: User "gina" cannot list resource "pods" in API group "" in the namespace "ns1": RBAC: role.rbac.authorization.k8s.io "ghost-role" not found',
    );
  });
});

describe('SubjectAccessReview reasons', () => {
  test('an allowed request names the binding that allowed it', async () => {
    const res = await api.post('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice', resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } },
    });
    expect(res.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-reads/ns1" of Role "pod-reader" to User "alice"' });
  });

  test('LocalSubjectAccessReview and SelfSubjectAccessReview as an impersonated user', async () => {
    const local = await api.post('/apis/authorization.k8s.io/v1/namespaces/ns1/localsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'ns1' },
      spec: { user: 'system:serviceaccount:ns1:robot', resourceAttributes: { namespace: 'ns1', verb: 'create', resource: 'secrets' } },
    });
    expect(local.body.status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "robot-secrets/ns1" of Role "secret-maker" to ServiceAccount "robot/ns1"',
    });
    const self = await api.post(
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { namespace: 'ns2', verb: 'get', resource: 'pods' } },
      },
      { headers: impersonating(ALICE) },
    );
    expect(self.status).toBe(201);
    expect(self.body.status).toEqual({ allowed: false });
  });
});
