import { kubectl, serverProcessForFile } from '../harness/process';

/** kubectl's RBAC commands and a chart's usual manifest: service account, cluster role and binding. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

test('kubectl api-resources lists the RBAC group', async () => {
  const res = await k('api-resources', '--api-group=rbac.authorization.k8s.io', '--no-headers', '-o', 'name');
  expect(res.stdout.trim().split('\n')).toEqual([
    'clusterrolebindings.rbac.authorization.k8s.io',
    'clusterroles.rbac.authorization.k8s.io',
    'rolebindings.rbac.authorization.k8s.io',
    'roles.rbac.authorization.k8s.io',
  ]);
});

test('kubectl create role, clusterrole, rolebinding and clusterrolebinding; get shows them as kube-apiserver prints them', async () => {
  expect((await k('create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods,pods/log')).stdout.trim()).toBe(
    'role.rbac.authorization.k8s.io/pod-reader created',
  );
  expect((await k('create', 'clusterrole', 'metrics-reader', '--verb=get', '--non-resource-url=/metrics')).stdout.trim()).toBe(
    'clusterrole.rbac.authorization.k8s.io/metrics-reader created',
  );
  expect((await k('create', 'rolebinding', 'read-pods', '--role=pod-reader', '--user=jane', '--serviceaccount=default:builder')).stdout.trim()).toBe(
    'rolebinding.rbac.authorization.k8s.io/read-pods created',
  );
  expect((await k('create', 'clusterrolebinding', 'metrics', '--clusterrole=metrics-reader', '--group=monitoring')).stdout.trim()).toBe(
    'clusterrolebinding.rbac.authorization.k8s.io/metrics created',
  );

  const role = JSON.parse((await k('get', 'role', 'pod-reader', '-o', 'json')).stdout);
  expect(role.rules).toEqual([{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }]);
  expect((await k('get', 'roles')).stdout).toMatch(/^NAME\s+CREATED AT\npod-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
  expect((await k('get', 'rolebinding', 'read-pods', '-o', 'wide')).stdout).toMatch(
    /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\nread-pods\s+Role\/pod-reader\s+\S+\s+jane\s+default\/builder\n$/,
  );
  expect((await k('get', 'clusterrolebinding', 'metrics')).stdout).toMatch(/^NAME\s+ROLE\s+AGE\nmetrics\s+ClusterRole\/metrics-reader\s+\S+\n$/);
});

test('a binding to a role kind it cannot hold is refused with the field named', async () => {
  const res = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: wrong\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: pod-reader\n',
  );
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain('roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"');
});

test("a chart's service account, cluster role and binding apply twice, the second time unchanged", async () => {
  const manifest = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: operator
  namespace: default
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: operator
rules:
- apiGroups: ["apps"]
  resources: ["deployments", "deployments/status"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: operator
subjects:
- kind: ServiceAccount
  name: operator
  namespace: default
`;
  const first = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(first.stderr).toBe('');
  expect(first.stdout.trim().split('\n')).toEqual([
    'serviceaccount/operator created',
    'clusterrole.rbac.authorization.k8s.io/operator created',
    'clusterrolebinding.rbac.authorization.k8s.io/operator created',
  ]);
  const second = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(second.stdout.trim().split('\n')).toEqual([
    'serviceaccount/operator unchanged',
    'clusterrole.rbac.authorization.k8s.io/operator unchanged',
    'clusterrolebinding.rbac.authorization.k8s.io/operator unchanged',
  ]);
  const server = await kubectl(kapi.url, ['apply', '--server-side', '-f', '-'], manifest.replace('verbs: ["*"]', 'verbs: ["get", "update"]'));
  expect(server.stderr).toBe('');
  expect((await k('get', 'clusterrole', 'operator', '-o', 'jsonpath={.rules[1].verbs}')).stdout).toBe('["get","update"]');
});
