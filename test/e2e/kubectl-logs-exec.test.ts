import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startFakeKubelet, type FakeKubelet } from '../harness/fake-kubelet';
import { kubectl, kubectlWatch, startServerProcess, type ServerProcess } from '../harness/process';
import { run } from '../harness/tls';

/** kubectl logs, logs -f, exec and get --raw .../proxy/ through kapi to a fake kubelet and a backend on 127.0.0.1. */

let kapi: ServerProcess;
let kubelet: FakeKubelet;
let backend: Server;
const k = (args: string[], input?: string) => kubectl(kapi.url, args, input);

beforeAll(async () => {
  kubelet = await startFakeKubelet({ logs: { 'default/web/app': ['one', 'two', 'three'] } });
  kapi = await startServerProcess();
  backend = createServer((req, res) => res.end(`hello from ${req.url}`));
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1' },
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } } },
  };
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx' }] } };
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80 }] } };
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['127.0.0.1'] }],
    ports: [{ name: 'http', port: (backend.address() as AddressInfo).port }],
  };
  const list = { apiVersion: 'v1', kind: 'List', items: [node, pod, svc, slice] };
  const created = await k(['create', '-f', '-'], JSON.stringify(list));
  expect(created.stderr).toBe('');
});

afterAll(async () => {
  await kapi?.stop();
  await kubelet?.close();
  backend?.closeAllConnections();
  await new Promise((resolve) => backend?.close(resolve));
});

test('kubectl logs prints the container log, with --tail and --timestamps passed to the kubelet', async () => {
  expect(await k(['logs', 'web'])).toEqual({ code: 0, stdout: 'one\ntwo\nthree\n', stderr: '' });
  const tail = await k(['logs', 'web', '--tail=1', '--timestamps']);
  expect(tail.stdout).toBe('2026-01-01T00:00:00.000000000Z three\n');
  expect(kubelet.requests.at(-1)!.url).toBe('/containerLogs/default/web/app?tailLines=1&timestamps=true');
});

test('kubectl logs -f streams until kubectl is stopped', async () => {
  const follow = kubectlWatch(kapi.url, ['logs', '-f', 'web']);
  try {
    await follow.waitFor(/follow 2\n/);
    expect(follow.output()).toMatch(/^one\ntwo\nthree\nfollow 1\nfollow 2\n/);
  } finally {
    follow.stop();
  }
  for (let i = 0; i < 50 && kubelet.openFollows() > 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect(kubelet.openFollows()).toBe(0);
});

test('kubectl exec prints what the kubelet sends, over the plain port and over TLS with the admin kubeconfig', async () => {
  expect(await k(['exec', 'web', '--', 'echo', 'hi'])).toEqual({ code: 0, stdout: 'hi\n', stderr: '' });
  const kubeconfig = path.join(kapi.dataDir, 'admin.kubeconfig');
  const secure = await run('kubectl', ['--kubeconfig', kubeconfig, 'exec', 'web', '--', 'echo', 'over', 'tls']);
  expect(secure).toEqual({ code: 0, stdout: 'over tls\n', stderr: '' });
  expect(kubelet.requests.at(-1)).toMatchObject({ url: '/exec/default/web/app?command=echo&command=over&command=tls&error=1&output=1', upgrade: 'websocket' });
});

test('kubectl exec on a pod not on a node shows kube message', async () => {
  const pending = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pending' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };
  expect((await k(['create', '-f', '-'], JSON.stringify(pending))).code).toBe(0);
  const res = await k(['exec', 'pending', '--', 'echo', 'hi']);
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain('pod pending does not have a host assigned');
});

test('kubectl get --raw reaches a backend through services/proxy', async () => {
  const res = await k(['get', '--raw', '/api/v1/namespaces/default/services/web:80/proxy/some/path?x=1']);
  expect(res).toEqual({ code: 0, stdout: 'hello from /some/path?x=1', stderr: '' });
});

test("@kubernetes/client-node's Log and Exec", async () => {
  const report = await new Promise<Record<string, unknown>>((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'client-node-streams.mjs'), kapi.url], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`client-node streams failed (${String((err as { code?: unknown }).code)}): ${stderr || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
  expect(report).toEqual({ log: 'two\nthree\n', status: { metadata: {}, status: 'Success' }, stdout: 'from client-node\n' });
});
