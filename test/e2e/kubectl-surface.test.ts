import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/** kubectl against kinds kubectl itself names: ReplicationController (its built-in prune list), kubectl get/scale rc. */

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);

beforeAll(async () => {
  kapi = await startServerProcess();
});

afterAll(async () => {
  await kapi.stop();
});

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels: {set: pruned}\ndata: {k: v}\n`;

test('kubectl apply --prune -l without an allowlist prunes what left the manifest', async () => {
  const first = await kubectl(kapi.url, ['apply', '--prune', '-l', 'set=pruned', '-f', '-'], `${configMap('keep')}---\n${configMap('drop')}`);
  // kubectl's own deprecation notes (and kube's Endpoints warning) go to stderr; no error may.
  expect(first.code).toBe(0);
  expect(first.stderr).not.toMatch(/error|no matches for kind/i);
  expect(first.stdout.trim().split('\n')).toEqual(['configmap/keep created', 'configmap/drop created']);
  const second = await kubectl(kapi.url, ['apply', '--prune', '-l', 'set=pruned', '-f', '-'], configMap('keep'));
  expect(second.code).toBe(0);
  expect(second.stderr).not.toMatch(/error|no matches for kind/i);
  expect(second.stdout.trim().split('\n')).toEqual(['configmap/keep unchanged', 'configmap/drop pruned']);
  expect((await k('get', 'configmap', 'drop')).code).not.toBe(0);
  expect((await k('get', 'configmap', 'keep', '-o', 'name')).stdout.trim()).toBe('configmap/keep');
});

const rc = `apiVersion: v1
kind: ReplicationController
metadata:
  name: web
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.27
`;

test('kubectl get rc shows kube columns, with the selector and labels defaulted from the template', async () => {
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], rc)).stdout.trim()).toBe('replicationcontroller/web created');
  // CURRENT is the replication controller's count of the pods it has made so far.
  const table = await k('get', 'rc', '-o', 'wide');
  expect(table.stdout).toMatch(
    /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nweb\s+2\s+[0-2]\s+0\s+\S+\s+app\s+nginx:1\.27\s+app=web\n$/,
  );
  const live = JSON.parse((await k('get', 'rc', 'web', '-o', 'json')).stdout);
  expect(live.spec.selector).toEqual({ app: 'web' });
  expect(live.metadata.labels).toEqual({ app: 'web' });
  expect(live.spec.template.spec.restartPolicy).toBe('Always');
});

test('kubectl scale rc writes the scale subresource', async () => {
  const res = await k('scale', 'rc', 'web', '--replicas=5');
  expect(res.stderr).toBe('');
  expect(res.stdout.trim()).toBe('replicationcontroller/web scaled');
  expect((await k('get', 'rc', 'web', '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('5');
  const scale = await k('get', 'rc', 'web', '--subresource=scale', '-o', 'jsonpath={.status.selector}');
  expect(scale.stdout).toBe('app=web');
});

test('a ReplicationController whose selector does not match its template is refused', async () => {
  const bad = rc.replace('name: web', 'name: bad').replace('  replicas: 2\n', '  replicas: 2\n  selector: {app: other}\n');
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], bad);
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain('spec.template.metadata.labels: Invalid value');
  expect(res.stderr).toContain('`selector` does not match template `labels`');
});

test('kubectl drain evicts the pods of a node through pods/eviction', async () => {
  const node = `apiVersion: v1\nkind: Node\nmetadata:\n  name: node-d\n`;
  const pod = (name: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels: {app: drained}\nspec:\n  nodeName: node-d\n  containers:\n  - name: c\n    image: nginx:1.27\n`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], `${node}---\n${pod('d1')}---\n${pod('d2')}`)).code).toBe(0);
  const res = await k('drain', 'node-d', '--force', '--grace-period=0', '--timeout=30s');
  expect(res.stderr).not.toMatch(/error/i);
  expect(res.stdout).toContain('pod/d1 evicted');
  expect(res.stdout).toContain('pod/d2 evicted');
  expect(res.stdout).toContain('node/node-d drained');
  expect((await k('get', 'pods', '-l', 'app=drained', '-o', 'name')).stdout.trim()).toBe('');
});
