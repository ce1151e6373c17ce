import { readFileSync } from 'node:fs';
import path from 'node:path';
import { kubectl, kubectlWatch, serverProcessForFile } from '../harness/process';

const FIXTURES = path.resolve(__dirname, '../fixtures');
const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

test('create namespace, get -o yaml, api-resources', async () => {
  const created = await k('create', 'namespace', 'e2e');
  expect(created.stderr).toBe('');
  expect(created.stdout.trim()).toBe('namespace/e2e created');
  const yaml = await k('get', 'namespace', 'e2e', '-o', 'yaml');
  expect(yaml.stdout).toMatch(/^apiVersion: v1\nkind: Namespace\nmetadata:\n/);
  expect(yaml.stdout).toContain('kubernetes.io/metadata.name: e2e');
  expect(yaml.stdout).toContain('phase: Active');
  const resources = await k('api-resources');
  expect(resources.code).toBe(0);
  expect(resources.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
  expect(resources.stdout).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
  expect(resources.stdout).toMatch(/^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
});

test('kubectl create configmap, secret and deployment (protobuf bodies)', async () => {
  expect((await k('create', 'configmap', 'cfg', '-n', 'e2e', '--from-literal=a=b')).stdout.trim()).toBe('configmap/cfg created');
  expect((await k('create', 'secret', 'generic', 'sec', '-n', 'e2e', '--from-literal=pw=hunter2')).stdout.trim()).toBe('secret/sec created');
  expect((await k('create', 'deployment', 'web', '-n', 'e2e', '--image=nginx:1.27', '--replicas=0')).stdout.trim()).toBe('deployment.apps/web created');
  const secret = JSON.parse((await k('get', 'secret', 'sec', '-n', 'e2e', '-o', 'json')).stdout);
  expect(Buffer.from(secret.data.pw, 'base64').toString()).toBe('hunter2');
  expect(secret.type).toBe('Opaque');
  const dep = JSON.parse((await k('get', 'deployment', 'web', '-n', 'e2e', '-o', 'json')).stdout);
  expect(dep.spec.replicas).toBe(0);
  expect(dep.spec.template.spec.containers[0]).toMatchObject({ name: 'nginx', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' });
});

test('apply -f twice with a change, then get -o wide', async () => {
  const first = await k('apply', '-f', path.join(FIXTURES, 'deployment-v1.yaml'));
  expect(first.stderr).toBe('');
  expect(first.stdout.trim()).toBe('deployment.apps/shop created');
  const second = await k('apply', '-f', path.join(FIXTURES, 'deployment-v2.yaml'));
  expect(second.stderr).toBe('');
  expect(second.stdout.trim()).toBe('deployment.apps/shop configured');
  const dep = JSON.parse((await k('get', 'deployment', 'shop', '-n', 'e2e', '-o', 'json')).stdout);
  expect(dep.spec.replicas).toBe(3);
  expect(dep.spec.template.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual(['api=nginx:1.27']);
  expect(dep.metadata.generation).toBe(2);
  expect(dep.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"replicas":3');
  const unchanged = await k('apply', '-f', path.join(FIXTURES, 'deployment-v2.yaml'));
  expect(unchanged.stdout.trim()).toBe('deployment.apps/shop unchanged');
  const wide = await k('get', 'deployments', '-n', 'e2e', '-o', 'wide');
  const [header, ...rows] = wide.stdout.trim().split('\n');
  expect(header.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
  expect(rows.find((r) => r.startsWith('shop'))?.split(/\s+/)).toEqual([
    'shop',
    '0/3',
    // UP-TO-DATE: the deployment controller's new pods so far (none becomes ready: no kubelet).
    expect.stringMatching(/^[0-3]$/),
    '0',
    expect.stringMatching(/^\d+s$/),
    'api',
    'nginx:1.27',
    'app=shop',
  ]);
});

test('get --chunk-size pages through everything', async () => {
  for (let i = 0; i < 5; i++) await k('create', 'configmap', `page-${i}`, '-n', 'e2e', '--from-literal=i=1');
  const res = await k('get', 'configmaps', '-n', 'e2e', '--chunk-size=2', '-o', 'name');
  expect(
    res.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('configmap/page-')),
  ).toEqual([0, 1, 2, 3, 4].map((i) => `configmap/page-${i}`));
  const verbose = await k('get', 'configmaps', '-n', 'e2e', '--chunk-size=2', '-v=6');
  expect(verbose.stderr.match(/limit=2/g)?.length).toBeGreaterThanOrEqual(3);
  expect(verbose.stderr).toContain('continue=');
});

test('get -w sees a create', async () => {
  const watcher = kubectlWatch(kapi.url, ['get', 'configmaps', '-n', 'e2e', '-w', '--output-watch-events']);
  const { waitFor } = watcher;
  try {
    await waitFor(/ADDED\s+cfg\s/);
    await k('create', 'configmap', 'watched', '-n', 'e2e', '--from-literal=x=y');
    await waitFor(/ADDED\s+watched\s+1\s/);
  } finally {
    watcher.stop();
  }
});

test('delete, and deleting a namespace empties it', async () => {
  expect((await k('delete', 'configmap', 'cfg', '-n', 'e2e')).stdout.trim()).toBe('configmap "cfg" deleted');
  expect((await k('get', 'configmap', 'cfg', '-n', 'e2e')).stderr).toContain('Error from server (NotFound): configmaps "cfg" not found');
  const del = await k('delete', 'namespace', 'e2e', '--timeout=30s');
  expect(del.stdout.trim()).toBe('namespace "e2e" deleted');
  expect((await k('get', 'namespace', 'e2e')).stderr).toContain('namespaces "e2e" not found');
  const leftovers = (await fetch(`${kapi.url}/apis/apps/v1/namespaces/e2e/deployments`).then((r) => r.json())) as { items: unknown[] };
  expect(leftovers.items).toEqual([]);
});

test('kubectl create with an invalid object shows the server error', async () => {
  const manifest = readFileSync(path.join(FIXTURES, 'invalid-pod.yaml'), 'utf8');
  const res = await kubectl(kapi.url, ['create', '-f', '-'], manifest);
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain('The Pod "Bad" is invalid');
});

test('a refused field selector: the server says why, kubectl (cli-runtime) says where, once', async () => {
  const res = await k('get', 'configmaps', '-A', '--field-selector', 'foo=x');
  expect(res.code).not.toBe(0);
  expect(res.stderr.trim()).toBe(
    'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "foo=x": ' +
      '"foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
  );
  // a field label kube converts (Pod's spec.host, the old name of spec.nodeName) is accepted
  const pods = await k('get', 'pods', '-A', '--field-selector', 'spec.host=no-such-node');
  expect([pods.code, pods.stderr.trim()]).toEqual([0, 'No resources found']);
});
