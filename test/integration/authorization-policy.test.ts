import { isDeepStrictEqual } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseFeatureGates } from '../../src/server/feature-gates';
import { Api } from '../harness/http';
import { eventually, RawEtcd } from '../harness/etcd-keys';
import { startTestServer } from '../harness/server';

/** Escalation prevention, the bootstrap policy and aggregation, impersonation, authorization modes, audit. */

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const AUTHZ = '/apis/authorization.k8s.io/v1';

const as = (user: string, extra: Record<string, string> = {}) => ({ headers: { 'Impersonate-User': user, ...extra } });
const role = (name: string, rules: unknown[], namespace?: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: namespace ? 'Role' : 'ClusterRole',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  rules,
});
const bindingTo = (name: string, roleRef: { kind: string; name: string }, user: string, namespace: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name, namespace },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
  subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
});

async function created(api: Api, p: string, body: unknown): Promise<void> {
  const res = await api.post(p, body);
  expect([res.status, res.body.message]).toEqual([201, undefined]);
}

/** Whether `user` may do it, once the authorizer's cache has caught up with a change. */
async function until(api: Api, user: string, attrs: Record<string, string>, allowed: boolean): Promise<void> {
  await eventually(`${user} ${JSON.stringify(attrs)} allowed=${allowed}`, async () => {
    const res = await api.post(`${AUTHZ}/subjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, resourceAttributes: attrs },
    });
    return res.body.status.allowed === allowed ? true : undefined;
  });
}

describe('with RBAC', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer();
    api = new Api(server.url);
    await created(api, '/api/v1/namespaces', { metadata: { name: 'esc' } });
    await created(
      api,
      `${RBAC}/namespaces/esc/roles`,
      role(
        'rbac-writer',
        [
          { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get', 'update', 'patch'] },
          { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        ],
        'esc',
      ),
    );
    await created(api, `${RBAC}/namespaces/esc/rolebindings`, bindingTo('eve-writes', { kind: 'Role', name: 'rbac-writer' }, 'eve', 'esc'));
    await until(api, 'eve', { namespace: 'esc', verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'roles' }, true);
  });

  afterAll(async () => {
    await server.close();
  });

  describe('escalation prevention', () => {
    const grab = role('grab', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }], 'esc');
    const missing = 'is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}';

    test('a role granting what its writer lacks is refused; with escalate it is allowed', async () => {
      const refused = await api.post(`${RBAC}/namespaces/esc/roles`, grab, as('eve'));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        reason: 'Forbidden',
        message: `roles.rbac.authorization.k8s.io "grab" is forbidden: user "eve" (groups=["system:authenticated"]) ${missing}`,
        details: { name: 'grab', group: 'rbac.authorization.k8s.io', kind: 'roles' },
      });
      const held = await api.post(
        `${RBAC}/namespaces/esc/roles`,
        role('pods-get', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], 'esc'),
        as('eve'),
      );
      expect(held.status).toBe(201);
      // A dry run is refused as the real write is.
      const dry = await api.post(`${RBAC}/namespaces/esc/roles?dryRun=All`, grab, as('eve'));
      expect([dry.status, dry.body.message]).toEqual([403, refused.body.message]);

      await created(
        api,
        `${RBAC}/namespaces/esc/roles`,
        role('escalator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }], 'esc'),
      );
      await created(api, `${RBAC}/namespaces/esc/rolebindings`, bindingTo('eve-escalates', { kind: 'Role', name: 'escalator' }, 'eve', 'esc'));
      await until(api, 'eve', { namespace: 'esc', verb: 'escalate', group: 'rbac.authorization.k8s.io', resource: 'roles' }, true);
      const allowed = await api.post(`${RBAC}/namespaces/esc/roles`, grab, as('eve'));
      expect(allowed.status).toBe(201);
    });

    test('a binding to a role whose permissions its writer lacks is refused; with bind it is allowed', async () => {
      await eventually('the role grab', async () => ((await api.get(`${RBAC}/namespaces/esc/roles/grab`)).status === 200 ? true : undefined));
      const binding = bindingTo('bind-grab', { kind: 'Role', name: 'grab' }, 'xavier', 'esc');
      const refused = await api.post(`${RBAC}/namespaces/esc/rolebindings`, binding, as('eve'));
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(
        `rolebindings.rbac.authorization.k8s.io "bind-grab" is forbidden: user "eve" (groups=["system:authenticated"]) ${missing}`,
      );
      const held = await api.post(
        `${RBAC}/namespaces/esc/rolebindings`,
        bindingTo('bind-pods', { kind: 'Role', name: 'pods-get' }, 'xavier', 'esc'),
        as('eve'),
      );
      expect(held.status).toBe(201);

      await created(
        api,
        `${RBAC}/namespaces/esc/roles`,
        role('binder', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], resourceNames: ['grab'], verbs: ['bind'] }], 'esc'),
      );
      await created(api, `${RBAC}/namespaces/esc/rolebindings`, bindingTo('eve-binds', { kind: 'Role', name: 'binder' }, 'eve', 'esc'));
      await until(api, 'eve', { namespace: 'esc', verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'roles', name: 'grab' }, true);
      const allowed = await api.post(`${RBAC}/namespaces/esc/rolebindings`, binding, as('eve'));
      expect(allowed.status).toBe(201);
      // bind is per role name: a binding to the admin ClusterRole is still refused.
      const admin = await api.post(
        `${RBAC}/namespaces/esc/rolebindings`,
        bindingTo('bind-admin', { kind: 'ClusterRole', name: 'admin' }, 'xavier', 'esc'),
        as('eve'),
      );
      expect(admin.status).toBe(403);
      expect(admin.body.message).toMatch(
        /^rolebindings.rbac.authorization.k8s.io "bind-admin" is forbidden: user "eve" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/,
      );
    });

    test('an update is checked too: adding a permission its writer lacks is refused', async () => {
      await created(api, `${RBAC}/namespaces/esc/rolebindings`, bindingTo('uma-writes', { kind: 'Role', name: 'rbac-writer' }, 'uma', 'esc'));
      await until(api, 'uma', { namespace: 'esc', verb: 'update', group: 'rbac.authorization.k8s.io', resource: 'roles' }, true);
      const current = (await api.get(`${RBAC}/namespaces/esc/roles/pods-get`)).body;
      const nodes = { apiGroups: [''], resources: ['nodes'], verbs: ['get'] };
      const refused = await api.put(`${RBAC}/namespaces/esc/roles/pods-get`, { ...current, rules: [...current.rules, nodes] }, as('uma'));
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(
        'roles.rbac.authorization.k8s.io "pods-get" is forbidden: user "uma" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
      );
      // Rules she holds pass (a relabel); eve, who may escalate, adds the rule.
      const relabelled = await api.put(
        `${RBAC}/namespaces/esc/roles/pods-get`,
        { ...current, metadata: { ...current.metadata, labels: { a: 'b' } } },
        as('uma'),
      );
      expect(relabelled.status).toBe(200);
      const added = await api.put(`${RBAC}/namespaces/esc/roles/pods-get`, { ...relabelled.body, rules: [...current.rules, nodes] }, as('eve'));
      expect(added.status).toBe(200);
    });
  });

  describe('bootstrap policy and aggregation', () => {
    test("kube's roles and bindings exist, marked for reconciliation", async () => {
      const basic = (await api.get(`${RBAC}/clusterroles/system:basic-user`)).body;
      expect(basic.metadata).toMatchObject({
        labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
        annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
      });
      expect(basic.rules).toEqual([
        { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
      ]);
      const viewers = (await api.get(`${RBAC}/clusterrolebindings/system:public-info-viewer`)).body;
      expect(viewers.subjects.map((s: { name: string }) => s.name)).toEqual(['system:authenticated', 'system:unauthenticated']);
      const admins = (await api.get(`${RBAC}/clusterrolebindings/cluster-admin`)).body;
      expect(admins.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
    });

    test('view, edit and admin are aggregated from the system:aggregate-to-* roles', async () => {
      const toView = (await api.get(`${RBAC}/clusterroles/system:aggregate-to-view`)).body.rules;
      const toEdit = (await api.get(`${RBAC}/clusterroles/system:aggregate-to-edit`)).body.rules;
      const view = await eventually('view aggregated', async () => {
        const r = (await api.get(`${RBAC}/clusterroles/view`)).body;
        return r.rules?.length ? r : undefined;
      });
      expect(view.rules).toEqual(toView);
      const edit = await eventually('edit aggregated', async () => {
        const r = (await api.get(`${RBAC}/clusterroles/edit`)).body;
        return r.rules?.length === toEdit.length + toView.length ? r : undefined;
      });
      // Sources in name order: system:aggregate-to-edit, then view.
      expect(edit.rules).toEqual([...toEdit, ...toView]);
    });

    test('a new aggregated role gathers, then loses, the rules of the roles it selects', async () => {
      const selector = { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }] };
      await created(api, `${RBAC}/clusterroles`, { ...role('monitoring', []), aggregationRule: selector });
      const labelled = (name: string, rules: unknown[]) => ({
        ...role(name, rules),
        metadata: { name, labels: { 'example.com/aggregate-to-monitoring': 'true' } },
      });
      const pods = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
      const nodes = { apiGroups: [''], resources: ['nodes'], verbs: ['list'] };
      await created(api, `${RBAC}/clusterroles`, labelled('monitoring-b', [nodes, pods]));
      await created(api, `${RBAC}/clusterroles`, labelled('monitoring-a', [pods]));
      const rulesOf = async () => (await api.get(`${RBAC}/clusterroles/monitoring`)).body.rules ?? [];
      // Sources in name order (monitoring-a, monitoring-b), each rule once.
      // Rules come back in PolicyRule's field order (verbs first), as Go writes them: compared by value.
      const aggregated = (rules: unknown[]) => rules.length === 2 && isDeepStrictEqual(rules, [pods, nodes]);
      await eventually('both sources aggregated', async () => (aggregated(await rulesOf()) ? true : undefined));
      expect((await api.delete(`${RBAC}/clusterroles/monitoring-b`)).status).toBe(200);
      await eventually('monitoring-b gone from the aggregate', async () => ((await rulesOf()).length === 1 ? true : undefined));
      expect(await rulesOf()).toEqual([pods]);
    });

    test('reconciled at the next start: missing rules come back, autoupdate=false is left alone', async () => {
      const basic = (await api.get(`${RBAC}/clusterroles/system:basic-user`)).body;
      expect((await api.put(`${RBAC}/clusterroles/system:basic-user`, { ...basic, rules: [basic.rules[0]] })).status).toBe(200);
      const discovery = (await api.get(`${RBAC}/clusterroles/system:discovery`)).body;
      discovery.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
      expect((await api.put(`${RBAC}/clusterroles/system:discovery`, { ...discovery, rules: [] })).status).toBe(200);
      const second = await startTestServer({ etcdPrefix: server.prefix });
      try {
        const again = new Api(second.url);
        expect((await again.get(`${RBAC}/clusterroles/system:basic-user`)).body.rules).toEqual([
          basic.rules[0],
          { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
        ]);
        expect((await again.get(`${RBAC}/clusterroles/system:discovery`)).body.rules).toBeNull();
      } finally {
        await second.close();
      }
    });
  });

  describe('impersonation', () => {
    test('a user with uid, groups and extra: whoami tells the truth', async () => {
      const res = await api.post(
        '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        as('alice', { 'Impersonate-Uid': 'u-1', 'Impersonate-Group': 'devs', 'Impersonate-Extra-Scopes': 'read' }),
      );
      expect(res.status).toBe(201);
      expect(res.body.status.userInfo).toEqual({ username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['read'] } });
    });

    test('a service account gets its groups; system:anonymous gets system:unauthenticated', async () => {
      const whoami = async (user: string) =>
        (await api.post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, as(user)))
          .body.status?.userInfo;
      expect(await whoami('system:serviceaccount:esc:robot')).toEqual({
        username: 'system:serviceaccount:esc:robot',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:esc', 'system:authenticated'],
      });
      // Anonymous may not create self subject reviews (system:basic-user is for the authenticated).
      const anonymous = await api.post(
        '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        as('system:anonymous'),
      );
      expect(anonymous.body.message).toBe(
        'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
      );
      expect((await api.get('/version', as('system:anonymous'))).status).toBe(200);
      expect((await api.get('/api', as('system:anonymous'))).status).toBe(403);
    });

    test('groups without a user is an error; who may impersonate is asked of the authorizer', async () => {
      const res = await api.get('/api/v1/namespaces', { headers: { 'Impersonate-Group': 'devs', 'Impersonate-Uid': 'u' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        reason: 'BadRequest',
        message: 'requested [{Group  devs    } {UID  u  authentication.k8s.io/v1  }] without impersonating a user',
      });
      const attrs = { verb: 'impersonate', resource: 'users', name: 'bob' };
      await until(api, 'ivan', attrs, false);
      await created(
        api,
        `${RBAC}/clusterroles`,
        role('impersonate-bob', [{ apiGroups: [''], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate'] }]),
      );
      await created(api, `${RBAC}/clusterrolebindings`, {
        ...bindingTo('ivan-impersonates', { kind: 'ClusterRole', name: 'impersonate-bob' }, 'ivan', ''),
        kind: 'ClusterRoleBinding',
        metadata: { name: 'ivan-impersonates' },
      });
      await until(api, 'ivan', attrs, true);
      await until(api, 'ivan', { ...attrs, name: 'carol' }, false);
    });
  });

  test('SelfSubjectRulesReview lists exactly what a restricted user holds', async () => {
    const res = await api.post(
      `${AUTHZ}/selfsubjectrulesreviews`,
      { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'esc' } },
      as('xavier'),
    );
    expect(res.status).toBe(201);
    expect(res.body.status.resourceRules).toEqual(
      expect.arrayContaining([
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['nodes'] },
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] },
      ]),
    );
    expect(res.body.status.resourceRules).toHaveLength(5);
  });
});

test('force deletion of a corrupt object needs delete and unsafe-delete-ignore-read-errors', async () => {
  const server = await startTestServer({ featureGates: parseFeatureGates('AllowUnsafeMalformedObjectDeletion=true') });
  const etcd = new RawEtcd();
  try {
    const api = new Api(server.url);
    const C = '/api/v1/namespaces/default/configmaps';
    await created(api, C, { metadata: { name: 'broken' } });
    await etcd.put(`${server.prefix}/configmaps/default/broken`, 'garbage{');
    const force = (user: string) => api.delete(`${C}/broken?ignoreStoreReadErrorWithClusterBreakingPotential=true`, as(user));
    await created(api, `${RBAC}/namespaces/default/roles`, role('deleter', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] }], 'default'));
    await created(api, `${RBAC}/namespaces/default/rolebindings`, bindingTo('del-deletes', { kind: 'Role', name: 'deleter' }, 'del', 'default'));
    await until(api, 'del', { namespace: 'default', verb: 'delete', resource: 'configmaps' }, true);
    const nothing = await force('nobody');
    expect(nothing.body.message).toBe(
      'configmaps "broken" is forbidden: User "nobody" cannot delete resource "configmaps" in API group "" in the namespace "default"',
    );
    const deleteOnly = await force('del');
    expect(deleteOnly.status).toBe(403);
    expect(deleteOnly.body.message).toBe('configmaps "broken" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: ');
    await created(
      api,
      `${RBAC}/namespaces/default/roles`,
      role('unsafe', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['unsafe-delete-ignore-read-errors'] }], 'default'),
    );
    await created(api, `${RBAC}/namespaces/default/rolebindings`, bindingTo('del-unsafe', { kind: 'Role', name: 'unsafe' }, 'del', 'default'));
    await until(api, 'del', { namespace: 'default', verb: 'unsafe-delete-ignore-read-errors', resource: 'configmaps' }, true);
    expect((await force('del')).status).toBe(200);
  } finally {
    etcd.close();
    await server.close();
  }
});

test('a PUT or an apply that creates needs create besides update or patch', async () => {
  const server = await startTestServer();
  try {
    const api = new Api(server.url);
    const L = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const lease = (name: string) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: 'default' },
      spec: { holderIdentity: 'uma' },
    });
    const put = (name: string) => api.put(`${L}/${name}`, lease(name), as('uma'));
    const apply = (name: string) => api.patch(`${L}/${name}?fieldManager=uma`, lease(name), 'application/apply-patch+yaml', as('uma'));
    await created(
      api,
      `${RBAC}/namespaces/default/roles`,
      role('lease-updater', [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update', 'patch'] }], 'default'),
    );
    await created(api, `${RBAC}/namespaces/default/rolebindings`, bindingTo('uma-updates', { kind: 'Role', name: 'lease-updater' }, 'uma', 'default'));
    await until(api, 'uma', { namespace: 'default', verb: 'update', group: 'coordination.k8s.io', resource: 'leases' }, true);
    const refusedPut = await put('by-put');
    expect([refusedPut.status, refusedPut.body.message]).toEqual([403, 'leases.coordination.k8s.io "by-put" is forbidden: ']);
    const refusedApply = await apply('by-apply');
    expect([refusedApply.status, refusedApply.body.message]).toEqual([403, 'leases.coordination.k8s.io "by-apply" is forbidden: ']);
    expect((await api.get(`${L}/by-put`)).status).toBe(404);
    // An update of an existing lease needs only update.
    await created(api, L, lease('existing'));
    const existing = await api.get(`${L}/existing`);
    expect((await api.put(`${L}/existing`, { ...existing.body, spec: { holderIdentity: 'uma-2' } }, as('uma'))).status).toBe(200);
    await created(
      api,
      `${RBAC}/namespaces/default/roles`,
      role('lease-creator', [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] }], 'default'),
    );
    await created(api, `${RBAC}/namespaces/default/rolebindings`, bindingTo('uma-creates', { kind: 'Role', name: 'lease-creator' }, 'uma', 'default'));
    await until(api, 'uma', { namespace: 'default', verb: 'create', group: 'coordination.k8s.io', resource: 'leases' }, true);
    expect((await put('by-put')).status).toBe(201);
    expect((await apply('by-apply')).status).toBe(201);
  } finally {
    await server.close();
  }
});

describe('authorization modes', () => {
  test('AlwaysDeny refuses everyone but system:masters, with its reason', async () => {
    const server = await startTestServer({ authorizationModes: ['AlwaysDeny'] });
    try {
      const api = new Api(server.url);
      const res = await api.get('/api/v1/namespaces/default/pods', as('alice'));
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default": Everything is forbidden.',
      );
      expect((await api.get('/api/v1/namespaces/default/pods')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('AlwaysAllow allows anyone, and its rules say so', async () => {
    const server = await startTestServer({ authorizationModes: ['AlwaysAllow'] });
    try {
      const api = new Api(server.url);
      expect((await api.get('/api/v1/namespaces/default/pods', as('alice'))).status).toBe(200);
      const rules = await api.post(
        `${AUTHZ}/selfsubjectrulesreviews`,
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } },
        as('alice'),
      );
      expect(rules.body.status).toEqual({
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      });
    } finally {
      await server.close();
    }
  });
});

describe('audit', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kapi-audit-'));
  const log = path.join(dir, 'audit.log');
  const policy = path.join(dir, 'policy.yaml');
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let api: Api;

  beforeAll(async () => {
    writeFileSync(
      policy,
      [
        'apiVersion: audit.k8s.io/v1',
        'kind: Policy',
        'rules:',
        '- level: None',
        '  nonResourceURLs: ["/healthz*"]',
        '- level: RequestResponse',
        '  resources: [{group: "", resources: ["configmaps"]}]',
        '- level: Metadata',
        '  omitStages: ["RequestReceived"]',
        '  resources: [{group: "", resources: ["pods"]}]',
        '- level: Metadata',
      ].join('\n'),
    );
    server = await startTestServer({ auditLogPath: log, auditPolicyFile: policy });
    api = new Api(server.url);
  });

  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const eventsOf = (auditID: string) =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.auditID === auditID);

  test('a write at RequestResponse: both stages, the bodies, the allow decision', async () => {
    const res = await api.post(
      '/api/v1/namespaces/default/configmaps',
      { metadata: { name: 'audited' }, data: { a: '1' } },
      { headers: { 'User-Agent': 'audit-test' } },
    );
    expect(res.status).toBe(201);
    const id = res.headers.get('audit-id')!;
    const events = await eventually('two events', async () => {
      const e = eventsOf(id);
      return e.length === 2 ? e : undefined;
    });
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    // The path names no object yet: the one sent completes the reference once it is read.
    expect(events[0].objectRef).toEqual({ resource: 'configmaps', namespace: 'default', apiGroup: '', apiVersion: 'v1' });
    const done = events[1];
    expect(done).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      auditID: id,
      requestURI: '/api/v1/namespaces/default/configmaps',
      verb: 'create',
      user: { username: 'system:unsecured', groups: ['system:masters', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'audit-test',
      objectRef: { resource: 'configmaps', namespace: 'default', name: 'audited', apiGroup: '', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 201 },
      requestObject: { metadata: { name: 'audited' }, data: { a: '1' } },
      responseObject: { kind: 'ConfigMap', metadata: { name: 'audited', namespace: 'default' } },
      annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
    });
    expect(done.requestReceivedTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(Object.keys(done)).toEqual([
      'kind',
      'apiVersion',
      'level',
      'auditID',
      'stage',
      'requestURI',
      'verb',
      'user',
      'sourceIPs',
      'userAgent',
      'objectRef',
      'responseStatus',
      'requestObject',
      'responseObject',
      'requestReceivedTimestamp',
      'stageTimestamp',
      'annotations',
    ]);
  });

  test('a refused impersonated read at Metadata, RequestReceived omitted', async () => {
    const res = await api.get('/api/v1/namespaces/default/pods', as('alice'));
    expect(res.status).toBe(403);
    const id = res.headers.get('audit-id')!;
    const [event] = await eventually('one event', async () => {
      const e = eventsOf(id);
      return e.length === 1 ? e : undefined;
    });
    expect(event).toMatchObject({
      level: 'Metadata',
      stage: 'ResponseComplete',
      verb: 'list',
      user: { username: 'system:unsecured' },
      impersonatedUser: { username: 'alice', groups: ['system:authenticated'] },
      objectRef: { resource: 'pods', namespace: 'default' },
      responseStatus: { metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, message: res.body.message },
      annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' },
    });
    expect(event.requestObject).toBeUndefined();
  });

  test('a watch has a ResponseStarted stage; level None writes nothing', async () => {
    const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1`);
    await res.text();
    const id = res.headers.get('audit-id')!;
    const events = await eventually('three events', async () => {
      const e = eventsOf(id);
      return e.length === 3 ? e : undefined;
    });
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    // /healthz is 500 until the leader's controllers have started, which a loaded machine can take a while to do.
    const health = await eventually('a healthy /healthz', async () => {
      const res = await fetch(`${server.url}/healthz`);
      return res.status === 200 ? res : undefined;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(eventsOf(health.headers.get('audit-id')!)).toEqual([]);
  });
});
