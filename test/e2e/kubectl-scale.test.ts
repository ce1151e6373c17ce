import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/** kubectl scale and kubectl's --subresource=scale against the scale subresource. */

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);

beforeAll(async () => {
  kapi = await startServerProcess();
  expect((await k('create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2')).stdout.trim()).toBe('deployment.apps/web created');
});

afterAll(async () => {
  await kapi.stop();
});

const replicas = async (what: string): Promise<string> => (await k('get', what, '-o', 'jsonpath={.spec.replicas}')).stdout;

test('kubectl scale deployment web --replicas=3 patches the scale subresource', async () => {
  const res = await k('scale', 'deployment', 'web', '--replicas=3');
  expect(res.stderr).toBe('');
  expect(res.stdout.trim()).toBe('deployment.apps/web scaled');
  expect(await replicas('deployment/web')).toBe('3');
  const live = JSON.parse((await k('get', 'deployment', 'web', '-o', 'json', '--show-managed-fields')).stdout);
  expect(live.metadata.managedFields).toContainEqual(
    expect.objectContaining({
      manager: 'kubectl',
      operation: 'Update',
      apiVersion: 'apps/v1',
      subresource: 'scale',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    }),
  );
});

test('kubectl scale --current-replicas: a precondition that fails names both counts; one that holds scales', async () => {
  const refused = await k('scale', 'deployment', 'web', '--current-replicas=2', '--replicas=5');
  expect(refused.code).not.toBe(0);
  expect(refused.stderr.trim()).toBe('error: Expected replicas to be 2, was 3');
  expect(await replicas('deployment/web')).toBe('3');
  expect((await k('scale', 'deployment/web', '--current-replicas=3', '--replicas=5')).stdout.trim()).toBe('deployment.apps/web scaled');
  expect(await replicas('deployment/web')).toBe('5');
});

test('kubectl scale of a replica set and a stateful set; a daemon set cannot be scaled', async () => {
  const manifest = (kind: string, name: string) =>
    `apiVersion: apps/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n${kind === 'DaemonSet' ? '' : '  replicas: 1\n'}  selector:\n    matchLabels: {app: ${name}}\n  template:\n    metadata:\n      labels: {app: ${name}}\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.27\n`;
  const input = `${manifest('ReplicaSet', 'rs')}---\n${manifest('StatefulSet', 'sts')}---\n${manifest('DaemonSet', 'ds')}`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], input)).code).toBe(0);
  const res = await k('scale', 'replicaset/rs', 'statefulset/sts', '--replicas=4');
  expect(res.stdout.trim().split('\n')).toEqual(['replicaset.apps/rs scaled', 'statefulset.apps/sts scaled']);
  expect(await replicas('replicaset/rs')).toBe('4');
  expect(await replicas('statefulset/sts')).toBe('4');
  const ds = await k('scale', 'daemonset/ds', '--replicas=2');
  expect(ds.code).not.toBe(0);
  expect(ds.stderr).toContain('the server could not find the requested resource');
});

test('kubectl get and patch --subresource=scale', async () => {
  const table = await k('get', 'deployment', 'web', '--subresource=scale');
  // AVAILABLE is the Scale's status.replicas: the deployment controller's pods, as many as exist yet.
  expect(table.stdout).toMatch(/^NAME\s+DESIRED\s+AVAILABLE\s+AGE\nweb\s+5\s+[0-5]\s+\S+\n$/);
  const yaml = await k('get', 'deployment', 'web', '--subresource=scale', '-o', 'yaml');
  expect(yaml.stdout).toMatch(/^apiVersion: autoscaling\/v1\nkind: Scale\n/);
  expect(yaml.stdout).toContain('selector: app=web');
  const patched = await k('patch', 'deployment', 'web', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":1}}');
  expect(patched.stdout.trim()).toBe('scale.autoscaling/web patched');
  expect(await replicas('deployment/web')).toBe('1');
});
