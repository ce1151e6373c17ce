import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { kubectl, serverProcessForFile } from '../harness/process';

/** The write paths as kubectl drives them: apply (client- and server-side), patch, explain, dry run, diff. */

const kapi = serverProcessForFile();
const dir = mkdtempSync(path.join(tmpdir(), 'kapi-writes-'));
const k = (...args: string[]) => kubectl(kapi.url, args);
const manifest = (name: string, body: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, body);
  return file;
};

const CONFIG = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\n  labels:\n    app: demo\ndata:\n${data}`;

test('client-side apply, three rounds, a field removed in the third', async () => {
  const file = manifest('cm.yaml', CONFIG('  a: "1"\n  b: "2"\n'));
  expect((await k('apply', '-f', file)).stdout.trim()).toBe('configmap/settings created');
  writeFileSync(file, CONFIG('  a: "1"\n  b: "3"\n'));
  expect((await k('apply', '-f', file)).stdout.trim()).toBe('configmap/settings configured');
  writeFileSync(file, CONFIG('  a: "1"\n'));
  expect((await k('apply', '-f', file)).stdout.trim()).toBe('configmap/settings configured');
  const live = JSON.parse((await k('get', 'configmap', 'settings', '-o', 'json', '--show-managed-fields')).stdout);
  expect(live.data).toEqual({ a: '1' });
  expect(JSON.parse(live.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data).toEqual({ a: '1' });
  expect(live.metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`)).toEqual([
    'kubectl-client-side-apply/Update',
  ]);
});

test('server-side apply with two field managers, a conflict, then force', async () => {
  const dep = (replicas: number) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: ${replicas}\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n`;
  expect((await k('apply', '--server-side', '-f', manifest('dep.yaml', dep(2)))).stdout.trim()).toBe('deployment.apps/web serverside-applied');
  const scaler = manifest('scale.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: 4\n');
  const conflict = await k('apply', '--server-side', '--field-manager=scaler', '-f', scaler);
  expect(conflict.code).not.toBe(0);
  expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
  expect((await k('apply', '--server-side', '--field-manager=scaler', '--force-conflicts', '-f', scaler)).code).toBe(0);
  const live = JSON.parse((await k('get', 'deployment', 'web', '-o', 'json', '--show-managed-fields')).stdout);
  expect(live.spec.replicas).toBe(4);
  const managers = Object.fromEntries(
    live.metadata.managedFields.map((m: { manager: string; fieldsV1: { 'f:spec': Record<string, unknown> } }) => [
      m.manager,
      Object.keys(m.fieldsV1['f:spec']).sort(),
    ]),
  );
  expect(managers).toEqual({ kubectl: ['f:selector', 'f:template'], scaler: ['f:replicas'] });
});

test('kubectl patch --type=json|merge|strategic', async () => {
  expect((await k('patch', 'configmap', 'settings', '--type=merge', '-p', '{"data":{"m":"merge"}}')).stdout.trim()).toBe('configmap/settings patched');
  expect((await k('patch', 'configmap', 'settings', '--type=json', '-p', '[{"op":"add","path":"/data/j","value":"json"}]')).code).toBe(0);
  expect(
    (await k('patch', 'deployment', 'web', '--type=strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}}'))
      .code,
  ).toBe(0);
  const cm = JSON.parse((await k('get', 'configmap', 'settings', '-o', 'json')).stdout);
  expect(cm.data).toEqual({ a: '1', m: 'merge', j: 'json' });
  const failed = await k('patch', 'configmap', 'settings', '--type=json', '-p', '[{"op":"test","path":"/data/a","value":"nope"}]');
  expect(failed.stderr).toContain('the server rejected our request due to an error in our request');
  const dep = JSON.parse((await k('get', 'deployment', 'web', '-o', 'json')).stdout);
  expect(dep.spec.template.spec.containers.map((c: { image: string }) => c.image)).toEqual(['nginx:1.28']);
});

test("a strategic merge patch of the wrong shape is refused in the unstructured converter's words (kubectl's test/cmd looks for them)", async () => {
  const labels = await k('patch', 'configmap', 'settings', '-p', '{"metadata":{"labels":"invalid"}}');
  expect(labels.code).not.toBe(0);
  expect(labels.stderr).toContain('Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string');
  // kube's patcher decodes the patch preserving integers (int64), and fills simple types as fromUnstructured does
  const list = await k('patch', 'deployment', 'web', '-p', '{"spec":{"template":{"spec":{"containers":5}}}}');
  expect(list.stderr).toContain('cannot restore slice from int64');
  const struct = await k('patch', 'deployment', 'web', '-p', '{"spec":{"template":"x"}}');
  expect(struct.stderr).toContain('cannot restore struct from: string');
  const scalars: [string, string][] = [
    ['{"metadata":{"labels":{"a":1}}}', 'Invalid value: "map[metadata:map[labels:map[a:1]]]": cannot convert int64 to string'],
    ['{"spec":{"replicas":1.5}}', 'Invalid value: "map[spec:map[replicas:1.5]]": cannot convert float64 to int32'],
    ['{"spec":{"paused":"yes"}}', 'Invalid value: "map[spec:map[paused:yes]]": unrecognized type: bool'],
  ];
  const kubectlScalar = await k('patch', 'deployment', 'web', '-p', scalars[0][0]);
  expect(kubectlScalar.stderr).toContain(scalars[0][1]);
  for (const [patch, text] of scalars) {
    const res = await fetch(`${kapi.url}/apis/apps/v1/namespaces/default/deployments/web`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: patch,
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ kind: 'Status', code: 422, reason: 'Invalid', message: ` "" is invalid: patch: ${text}` });
  }
  expect(JSON.parse((await k('get', 'configmap', 'settings', '-o', 'json')).stdout).metadata.labels).toEqual({ app: 'demo' });
});

test('kubectl explain uses the OpenAPI v3 schemas', async () => {
  const res = await k('explain', 'pod.spec.containers');
  expect(res.code).toBe(0);
  expect(res.stdout).toContain('FIELD: containers <[]Container>');
  expect(res.stdout).toMatch(/^\s+image\s+<string>/m);
  expect(res.stdout).toMatch(/^\s+name\s+<string> -required-/m);
});

test('kubectl create --dry-run=server changes nothing', async () => {
  const res = await k('create', 'configmap', 'ghost', '--from-literal=a=b', '--dry-run=server', '-o', 'json');
  expect(res.code).toBe(0);
  expect(JSON.parse(res.stdout).metadata.uid).toBeDefined();
  expect((await k('get', 'configmap', 'ghost')).stderr).toContain('not found');
});

test('kubectl diff shows only what would change', async () => {
  const file = manifest('diff.yaml', CONFIG('  a: "1"\n'));
  await k('apply', '-f', file);
  expect((await k('diff', '-f', file)).code).toBe(0);
  writeFileSync(file, readFileSync(file, 'utf8').replace('a: "1"', 'a: "2"'));
  const changed = await k('diff', '-f', file);
  expect(changed.code).toBe(1);
  expect(changed.stdout.split('\n').filter((l) => /^[-+] /.test(l))).toEqual(['-  a: "1"', '+  a: "2"']);
});

test('kubectl replace -f of a Node and a ConfigMap whose resourceVersion is "0" overwrites them', async () => {
  const node = (label: string) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'replaced', resourceVersion: '0', labels: { tier: label } } });
  const file = manifest('node.json', node('a'));
  expect((await k('create', '-f', file)).code).toBe(0);
  writeFileSync(file, node('b'));
  expect((await k('replace', '-f', file)).stdout.trim()).toBe('node/replaced replaced');
  expect(JSON.parse((await k('get', 'node', 'replaced', '-o', 'json')).stdout).metadata.labels).toEqual({ tier: 'b' });
  const cm = manifest('zero.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: zero\n  namespace: default\n  resourceVersion: "0"\ndata:\n  a: "2"\n');
  expect((await k('create', 'configmap', 'zero', '--from-literal=a=1')).code).toBe(0);
  expect((await k('replace', '-f', cm)).stdout.trim()).toBe('configmap/zero replaced');
  expect(JSON.parse((await k('get', 'configmap', 'zero', '-o', 'json')).stdout).data).toEqual({ a: '2' });
});

test("typed strategy hooks: a Secret's stringData folds into data, a ServiceAccount's secret references keep only the name, a Pod gets its QoS class", async () => {
  const objects = manifest(
    'typed.yaml',
    [
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: folded\n  namespace: default\ndata:\n  a: YQ==\n  b: Yg==\nstringData:\n  b: bee\n  c: see\n',
      'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: refs\n  namespace: default\nsecrets:\n- name: folded\n  namespace: elsewhere\n  uid: "1234"\n',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: qos\n  namespace: default\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n    resources:\n      requests: {cpu: 100m}\n',
    ].join('---\n'),
  );
  expect((await k('create', '-f', objects)).code).toBe(0);
  const secret = JSON.parse((await k('get', 'secret', 'folded', '-o', 'json')).stdout);
  expect(secret.data).toEqual({ a: 'YQ==', b: Buffer.from('bee').toString('base64'), c: Buffer.from('see').toString('base64') });
  expect(secret.stringData).toBeUndefined();
  expect(JSON.parse((await k('get', 'serviceaccount', 'refs', '-o', 'json')).stdout).secrets).toEqual([{ name: 'folded' }]);
  expect(JSON.parse((await k('get', 'pod', 'qos', '-o', 'json')).stdout).status).toMatchObject({ phase: 'Pending', qosClass: 'Burstable' });
});
