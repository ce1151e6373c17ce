import { causes } from '../harness/causes';
import { RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** rbac.authorization.k8s.io/v1: stored, defaulted and validated as kube-apiserver does. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const GROUP = 'rbac.authorization.k8s.io';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  etcd = new RawEtcd();
});

afterAll(async () => {
  etcd.close();
  await server.close();
});

const role = (name: string, rules: unknown[]) => ({ apiVersion: `${GROUP}/v1`, kind: 'Role', metadata: { name }, rules });
const clusterRole = (name: string, extra: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'ClusterRole', metadata: { name }, ...extra });
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleRef: Record<string, unknown>, subjects: unknown[]) => ({
  apiVersion: `${GROUP}/v1`,
  kind,
  metadata: { name },
  roleRef,
  subjects,
});

test('discovery serves the group with its four resources, namespaced as in kube-apiserver', async () => {
  const res = await api.get(RBAC);
  expect(res.status).toBe(200);
  const resources = Object.fromEntries(
    (res.body.resources as { name: string; namespaced: boolean; kind: string }[]).map((r) => [r.name, [r.kind, r.namespaced]]),
  );
  expect(resources).toEqual({
    clusterrolebindings: ['ClusterRoleBinding', false],
    clusterroles: ['ClusterRole', false],
    rolebindings: ['RoleBinding', true],
    roles: ['Role', true],
  });
  const groups = (await api.get('/apis')).body.groups.map((g: { name: string }) => g.name);
  expect(groups.indexOf(GROUP)).toBeGreaterThan(groups.indexOf('apps'));
  expect(groups.indexOf(GROUP)).toBeLessThan(groups.indexOf('coordination.k8s.io'));
});

test('a Role is stored under /registry/roles with its rules; names may hold colons', async () => {
  const rules = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }];
  const res = await api.post(`${RBAC}/namespaces/default/roles`, role('system:pod-reader', rules));
  expect(res.status).toBe(201);
  expect(res.body.rules).toEqual(rules);
  expect(await etcd.keys(`${server.prefix}/roles/default/`)).toEqual([`${server.prefix}/roles/default/system:pod-reader`]);
  const got = await api.get(`${RBAC}/namespaces/default/roles/system:pod-reader`);
  expect(got.body.metadata.uid).toBe(res.body.metadata.uid);
});

test('policy rules are validated with kube-apiserver messages, and nothing is stored', async () => {
  const res = await api.post(`${RBAC}/namespaces/default/roles`, role('bad', [{ verbs: [] }, { verbs: ['get'], nonResourceURLs: ['/metrics'] }]));
  expect(res.status).toBe(422);
  expect(res.body.reason).toBe('Invalid');
  expect(causes(res.body)).toEqual([
    'FieldValueRequired rules[0].verbs: Required value: verbs must contain at least one value',
    'FieldValueRequired rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'FieldValueRequired rules[0].resources: Required value: resource rules must supply at least one resource',
    'FieldValueInvalid rules[1].nonResourceURLs: Invalid value: ["/metrics"]: namespaced rules cannot apply to non-resource URLs',
  ]);
  const mixed = await api.post(`${RBAC}/clusterroles`, clusterRole('mixed', { rules: [{ verbs: ['get'], resources: ['pods'], nonResourceURLs: ['/x'] }] }));
  expect(mixed.status).toBe(422);
  expect(causes(mixed.body)).toEqual([
    'FieldValueInvalid rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
  ]);
  expect((await api.get(`${RBAC}/clusterroles/mixed`)).status).toBe(404);
});

test('a ClusterRole may allow non-resource URLs and carry an aggregation rule, which needs a selector', async () => {
  const ok = await api.post(`${RBAC}/clusterroles`, clusterRole('metrics-reader', { rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] }));
  expect(ok.status).toBe(201);
  const aggregated = await api.post(
    `${RBAC}/clusterroles`,
    clusterRole('monitoring', { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }] } }),
  );
  expect(aggregated.status).toBe(201);
  const empty = await api.post(`${RBAC}/clusterroles`, clusterRole('empty-aggregation', { aggregationRule: {} }));
  expect(empty.status).toBe(422);
  expect(causes(empty.body)).toEqual([
    'FieldValueRequired aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
  ]);
});

test('bindings default the role reference and subject API groups as SetDefaults does', async () => {
  const res = await api.post(
    `${RBAC}/namespaces/default/rolebindings`,
    binding('RoleBinding', 'readers', { kind: 'Role', name: 'system:pod-reader' }, [
      { kind: 'User', name: 'jane' },
      { kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
    ]),
  );
  expect(res.status).toBe(201);
  expect(res.body.roleRef).toEqual({ apiGroup: GROUP, kind: 'Role', name: 'system:pod-reader' });
  expect(res.body.subjects).toEqual([
    { kind: 'User', apiGroup: GROUP, name: 'jane' },
    { kind: 'Group', apiGroup: GROUP, name: 'devs' },
    { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
  ]);
});

test('bindings refuse foreign role kinds, bad subjects and cluster-wide service accounts without a namespace', async () => {
  const res = await api.post(
    `${RBAC}/clusterrolebindings`,
    binding('ClusterRoleBinding', 'bad', { apiGroup: 'example.com', kind: 'Role', name: 'x' }, [
      { kind: 'ServiceAccount', name: 'builder' },
      { kind: 'User', apiGroup: 'example.com', name: 'jane' },
      { kind: 'Robot', name: 'r2' },
    ]),
  );
  expect(res.status).toBe(422);
  expect(causes(res.body)).toEqual([
    'FieldValueNotSupported roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
    'FieldValueNotSupported roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    'FieldValueRequired subjects[0].namespace: Required value',
    'FieldValueNotSupported subjects[1].apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
    'FieldValueNotSupported subjects[2].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
  ]);
  const noRef = await api.post(`${RBAC}/namespaces/default/rolebindings`, { apiVersion: `${GROUP}/v1`, kind: 'RoleBinding', metadata: { name: 'no-ref' } });
  expect(noRef.status).toBe(422);
  expect(causes(noRef.body)).toEqual([
    'FieldValueNotSupported roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"',
    'FieldValueRequired roleRef.name: Required value',
  ]);
});

test('roleRef cannot change on update; subjects can', async () => {
  const path = `${RBAC}/clusterrolebindings/viewers`;
  const created = await api.post(
    `${RBAC}/clusterrolebindings`,
    binding('ClusterRoleBinding', 'viewers', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'Group', name: 'a' }]),
  );
  expect(created.status).toBe(201);
  const changedRef = await api.put(path, { ...created.body, roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'edit' } });
  expect(changedRef.status).toBe(422);
  expect(causes(changedRef.body)).toEqual([expect.stringMatching(/^FieldValueInvalid roleRef: Invalid value: .*: cannot change roleRef$/)]);
  const changedSubjects = await api.put(path, { ...created.body, subjects: [{ kind: 'Group', name: 'b' }] });
  expect(changedSubjects.status).toBe(200);
  expect(changedSubjects.body.subjects).toEqual([{ kind: 'Group', apiGroup: GROUP, name: 'b' }]);
});

test('tables show the role and, wide, the subjects as kubectl prints them', async () => {
  await api.post(
    `${RBAC}/namespaces/default/rolebindings`,
    binding('RoleBinding', 'table', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'User', name: 'jane' },
      { kind: 'User', name: 'joe' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    ]),
  );
  const res = await api.get(`${RBAC}/namespaces/default/rolebindings/table`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  expect(res.status).toBe(200);
  expect(res.body.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}:${c.priority}`)).toEqual([
    'Name:0',
    'Role:0',
    'Age:0',
    'Users:1',
    'Groups:1',
    'ServiceAccounts:1',
  ]);
  const [name, roleCell, , users, groups, sas] = res.body.rows[0].cells;
  expect([name, roleCell, users, groups, sas]).toEqual(['table', 'ClusterRole/view', 'jane, joe', '', 'ci/builder']);
  const roles = await api.get(`${RBAC}/namespaces/default/roles`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  expect(roles.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Created At']);
});
