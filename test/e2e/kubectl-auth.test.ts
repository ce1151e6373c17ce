import { kubectl, serverProcessForFile } from '../harness/process';

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

test.each([[['create', 'pods']], [['*', '*', '--all-namespaces']], [['get', '/logs']], [['delete', 'leases.coordination.k8s.io', '-n', 'kube-system']]])(
  'kubectl auth can-i %j: yes',
  async (args) => {
    const res = await k('auth', 'can-i', ...args);
    expect(res).toEqual({ code: 0, stdout: 'yes\n', stderr: '' });
  },
);

const rowsOf = (stdout: string): string[][] =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

test("kubectl auth can-i --list: the insecure port's rules (cluster-admin and what every authenticated user has)", async () => {
  const res = await k('auth', 'can-i', '--list');
  expect(res.code).toBe(0);
  expect(res.stderr).toBe('');
  expect(rowsOf(res.stdout)).toEqual([
    ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'],
    ['*.*', '[]', '[]', '[*]'],
    ['[*]', '[]', '[*]'],
    ['selfsubjectreviews.authentication.k8s.io', '[]', '[]', '[create]'],
    ['selfsubjectaccessreviews.authorization.k8s.io', '[]', '[]', '[create]'],
    ['selfsubjectrulesreviews.authorization.k8s.io', '[]', '[]', '[create]'],
    ['[/api/*]', '[]', '[get]'],
    ['[/api]', '[]', '[get]'],
    ['[/apis/*]', '[]', '[get]'],
    ['[/apis]', '[]', '[get]'],
    ['[/healthz]', '[]', '[get]'],
    ['[/healthz]', '[]', '[get]'],
    ['[/livez]', '[]', '[get]'],
    ['[/livez]', '[]', '[get]'],
    ['[/openapi/*]', '[]', '[get]'],
    ['[/openapi]', '[]', '[get]'],
    ['[/readyz]', '[]', '[get]'],
    ['[/readyz]', '[]', '[get]'],
    ['[/version/]', '[]', '[get]'],
    ['[/version/]', '[]', '[get]'],
    ['[/version]', '[]', '[get]'],
    ['[/version]', '[]', '[get]'],
  ]);
});

describe('as a restricted user (--as)', () => {
  const policy = `
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: deployer, namespace: team}
rules:
- apiGroups: [apps]
  resources: [deployments, deployments/scale]
  verbs: [get, list, update]
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [settings]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dana-deploys, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: deployer}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: dana}
`;

  beforeAll(async () => {
    const applied = await kubectl(kapi.url, ['apply', '-f', '-'], policy);
    expect(applied.stderr).toBe('');
    // The authorizer's cache follows the binding within moments.
    for (let i = 0; i < 50; i++) {
      if ((await k('auth', 'can-i', 'list', 'deployments', '-n', 'team', '--as=dana')).stdout === 'yes\n') return;
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  test("can-i --list shows exactly the role's rules and what every authenticated user has", async () => {
    const res = await k('auth', 'can-i', '--list', '-n', 'team', '--as=dana');
    expect(res.code).toBe(0);
    const rows = rowsOf(res.stdout);
    expect(rows.filter((r) => !r[0].startsWith('[/'))).toEqual([
      ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'],
      ['selfsubjectreviews.authentication.k8s.io', '[]', '[]', '[create]'],
      ['selfsubjectaccessreviews.authorization.k8s.io', '[]', '[]', '[create]'],
      ['selfsubjectrulesreviews.authorization.k8s.io', '[]', '[]', '[create]'],
      ['deployments.apps/scale', '[]', '[]', '[get list update]'],
      ['deployments.apps', '[]', '[]', '[get list update]'],
      ['configmaps', '[]', '[settings]', '[get]'],
    ]);
    // Elsewhere only what every authenticated user has.
    const other = rowsOf((await k('auth', 'can-i', '--list', '-n', 'default', '--as=dana')).stdout);
    expect(other.filter((r) => !r[0].startsWith('[/')).map((r) => r[0])).toEqual([
      'Resources',
      'selfsubjectreviews.authentication.k8s.io',
      'selfsubjectaccessreviews.authorization.k8s.io',
      'selfsubjectrulesreviews.authorization.k8s.io',
    ]);
  });

  test.each([
    [['get', 'deployments', '-n', 'team'], 'yes'],
    [['update', 'deployments.apps/scale', '-n', 'team'], 'yes'],
    [['delete', 'deployments', '-n', 'team'], 'no'],
    [['get', 'deployments', '-n', 'default'], 'no'],
    [['get', 'configmaps/settings', '-n', 'team'], 'yes'],
    [['get', 'configmaps/other', '-n', 'team'], 'no'],
    [['get', '/metrics'], 'no'],
    [['get', '/version'], 'yes'],
  ])('can-i %j: %s', async (args, answer) => {
    const res = await k('auth', 'can-i', ...args, '--as=dana');
    expect(res.stdout).toBe(`${answer}\n`);
    expect(res.code).toBe(answer === 'yes' ? 0 : 1);
  });

  test('the refused request itself, and whoami', async () => {
    const res = await k('get', 'pods', '-n', 'team', '--as=dana');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'Error from server (Forbidden): pods is forbidden: User "dana" cannot list resource "pods" in API group "" in the namespace "team"',
    );
    const whoami = await k('auth', 'whoami', '--as=dana', '--as-group=devs');
    expect(whoami.stdout).toMatch(/^ATTRIBUTE\s+VALUE\nUsername\s+dana\nGroups\s+\[devs system:authenticated\]\n$/);
  });
});

test('kubectl auth whoami, as a table and as JSON', async () => {
  const table = await k('auth', 'whoami');
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/^ATTRIBUTE\s+VALUE\nUsername\s+system:unsecured\nGroups\s+\[system:masters system:authenticated\]\n$/);
  const json = await k('auth', 'whoami', '-o', 'json');
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toMatchObject({
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    status: { userInfo: { username: 'system:unsecured', groups: ['system:masters', 'system:authenticated'] } },
  });
});

test('kubectl create -f of a SelfSubjectAccessReview, validated against /openapi/v2 in Protobuf', async () => {
  const review = 'apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  resourceAttributes:\n    verb: get\n    resource: pods\n';
  const res = await kubectl(kapi.url, ['create', '-f', '-', '-o', 'jsonpath={.status.allowed}'], review);
  expect(res.stderr).toBe('');
  expect(res.stdout).toBe('true');
});
