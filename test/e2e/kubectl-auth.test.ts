import { kubectl, serverProcessForFile } from '../harness/process';

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

test.each([
  [['create', 'pods']],
  [['*', '*', '--all-namespaces']],
  [['get', '/logs']],
  [['delete', 'leases.coordination.k8s.io', '-n', 'kube-system']],
])('kubectl auth can-i %j: yes', async (args) => {
  const res = await k('auth', 'can-i', ...args);
  expect(res).toEqual({ code: 0, stdout: 'yes\n', stderr: '' });
});

test('kubectl auth can-i --list: every verb on everything', async () => {
  const res = await k('auth', 'can-i', '--list');
  expect(res.code).toBe(0);
  expect(res.stderr).toBe('');
  const rows = res.stdout.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));
  expect(rows).toEqual([
    ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'],
    ['*.*', '[]', '[]', '[*]'],
    ['[*]', '[]', '[*]'],
  ]);
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
