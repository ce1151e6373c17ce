import { kubectl, kubectlWatch, startServerProcess, type ServerProcess } from '../harness/process';

/** What kubectl users see: Table columns from get and get -o wide -w, and raw bodies from get --raw. */

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);

beforeAll(async () => {
  kapi = await startServerProcess();
  await k('create', 'namespace', 'tables');
  expect((await k('run', 'web', '-n', 'tables', '--image=nginx:1.27', '--labels=app=web')).stdout.trim()).toBe('pod/web created');
});

afterAll(async () => {
  await kapi.stop();
});

const columns = (line: string): string[] => line.trim().split(/\s{2,}/);

test('kubectl get pods: NAME READY STATUS RESTARTS AGE', async () => {
  const res = await k('get', 'pods', '-n', 'tables');
  expect(res.stderr).toBe('');
  const [header, row] = res.stdout.trim().split('\n');
  expect(columns(header)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
  expect(columns(row)).toEqual(['web', '0/1', 'Pending', '0', expect.stringMatching(/^\d+s$/)]);
});

test('kubectl get pods -o wide -w: the wide columns, then a row per change', async () => {
  const watcher = kubectlWatch(kapi.url, ['get', 'pods', '-n', 'tables', '-o', 'wide', '-w']);
  const { waitFor } = watcher;
  try {
    await waitFor(/^web\s/m);
    const [header, first] = watcher.output().split('\n');
    expect(columns(header)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    expect(columns(first)).toEqual(['web', '0/1', 'Pending', '0', expect.stringMatching(/^\d+s$/), '<none>', '<none>', '<none>', '<none>']);
    await k('run', 'api', '-n', 'tables', '--image=nginx:1.27');
    await waitFor(/^api\s/m);
    const row = watcher
      .output()
      .split('\n')
      .find((l) => l.startsWith('api'))!;
    expect(columns(row).slice(0, 3)).toEqual(['api', '0/1', 'Pending']);
    // The header is printed once: later events carry no column definitions.
    expect(watcher.output().match(/^NAME\s/gm)).toHaveLength(1);
  } finally {
    watcher.stop();
  }
});

test('kubectl get --raw: the body as served, JSON by default', async () => {
  const res = await k('get', '--raw', '/api/v1/namespaces/tables/pods');
  const list = JSON.parse(res.stdout);
  expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1' });
  expect(list.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['api', 'web']);
  const one = JSON.parse((await k('get', '--raw', '/api/v1/namespaces/tables/pods/web')).stdout);
  expect(one.spec.containers[0].image).toBe('nginx:1.27');
});

test('kubectl create reads the Protobuf answer it asked for', async () => {
  const res = await k('create', 'configmap', 'pb', '-n', 'tables', '--from-literal=a=b', '-v=8');
  expect(res.stdout.trim()).toBe('configmap/pb created');
  expect(res.stderr).toMatch(/Accept: application\/vnd\.kubernetes\.protobuf,application\/json/);
  expect(res.stderr).toMatch(/round_trippers.go:\d+\]\s+Content-Type: application\/vnd\.kubernetes\.protobuf\n(?:.*\n)*.*Response Body/);
  expect(JSON.parse((await k('get', 'configmap', 'pb', '-n', 'tables', '-o', 'json')).stdout).data).toEqual({ a: 'b' });
});
