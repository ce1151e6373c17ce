import { execFile } from 'node:child_process';
import path from 'node:path';
import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/**
 * --simulated-nodes seen from outside: real kubectl against a real server process. The node
 * lifecycle runs with a short grace period (more than the kubelet's 10 s lease renewal) so that
 * a stopped node is noticed within the test; DefaultTolerationSeconds is off so that a pod can
 * have no toleration of the unreachable taint at all.
 */

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);
const apply = async (manifest: string): Promise<void> => {
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(res.stderr).toBe('');
};

async function getJson(...args: string[]): Promise<any> {
  const res = await k('get', ...args, '-o', 'json');
  if (res.code !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout);
}

/** Polls `read` until `ok` holds of its result; fails with the last result after the deadline. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch((err: unknown) => err as T);
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last: ${JSON.stringify(value, null, 1).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const condition = (obj: any, type: string) => (obj?.status?.conditions ?? []).find((c: any) => c.type === type);
const podManifest = (name: string, node: string, extra = '', annotations = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n${annotations ? `  annotations: ${annotations}\n` : ''}spec:\n  nodeName: ${node}\n${extra}  containers:\n  - name: app\n    image: nginx:1.27\n`;

beforeAll(async () => {
  kapi = await startServerProcess([
    '--simulated-nodes=3',
    '--simulated-run-duration=500ms',
    '--node-monitor-period=1s',
    '--node-monitor-grace-period=12s',
    '--disable-admission-plugins=DefaultTolerationSeconds',
  ]);
}, 60_000);

afterAll(async () => {
  await kapi.stop();
});

test('kubectl get nodes: kapi-node-0..2 register Ready as kubelets do, each with a pod CIDR, capacity and a Lease heartbeat', async () => {
  expect((await k('wait', '--for=condition=Ready', 'node', '--all', '--timeout=30s')).code).toBe(0);
  const table = (await k('get', 'nodes', '--no-headers')).stdout.trim().split('\n');
  expect(table.map((line) => line.split(/\s+/).filter((_, i) => i !== 3))).toEqual([0, 1, 2].map((i) => [`kapi-node-${i}`, 'Ready', '<none>', 'v1.36.3+kapi']));
  const node = await getJson('node', 'kapi-node-1');
  expect(node.metadata.labels).toEqual({
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': 'kapi-node-1',
    'kubernetes.io/os': 'linux',
  });
  expect(node.spec).toEqual({ podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] });
  expect(node.status.capacity).toMatchObject({ cpu: '8', memory: '32Gi', pods: '110' });
  expect(node.status.allocatable).toEqual(node.status.capacity);
  expect(node.status.addresses).toEqual([
    { type: 'InternalIP', address: '172.18.0.3' },
    { type: 'Hostname', address: 'kapi-node-1' },
  ]);
  expect(node.status.nodeInfo).toMatchObject({ kubeletVersion: 'v1.36.3+kapi', operatingSystem: 'linux', architecture: 'amd64' });
  expect(node.status.conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
    ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
    ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
    ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
    ['Ready', 'True', 'KubeletReady'],
  ]);
  const lease = await getJson('lease', '-n', 'kube-node-lease', 'kapi-node-1');
  expect(lease.spec).toMatchObject({ holderIdentity: 'kapi-node-1', leaseDurationSeconds: 40 });
  expect(lease.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'kapi-node-1', uid: node.metadata.uid }]);
  // The kubelet renews its lease every 10 s.
  const renewed = await until(
    () => getJson('lease', '-n', 'kube-node-lease', 'kapi-node-1'),
    (l) => l.spec?.renewTime !== lease.spec.renewTime,
    25_000,
  );
  expect(Date.parse(renewed.spec.renewTime)).toBeGreaterThan(Date.parse(lease.spec.renewTime));

  // A deleted node's kubelet registers it again.
  expect((await k('delete', 'node', 'kapi-node-2')).code).toBe(0);
  const again = await until(
    () => getJson('node', 'kapi-node-2'),
    (n) => !!n.metadata && n.metadata.uid !== undefined && condition(n, 'Ready')?.status === 'True',
  );
  expect(again.spec.podCIDR).toBe('10.244.2.0/24');
}, 60_000);

test('a pod bound to a simulated node goes Running and Ready with an IP of its podCIDR; a readiness probe passes after its initial delay', async () => {
  await apply(
    podManifest('web', 'kapi-node-1').replace(
      '    image: nginx:1.27\n',
      '    image: nginx:1.27\n    readinessProbe:\n      httpGet: {path: /, port: 80}\n      initialDelaySeconds: 2\n',
    ),
  );
  expect((await k('wait', '--for=condition=Ready', 'pod/web', '--timeout=20s')).code).toBe(0);
  const pod = await getJson('pod', 'web');
  expect(pod.status).toMatchObject({ phase: 'Running', hostIP: '172.18.0.3', hostIPs: [{ ip: '172.18.0.3' }] });
  expect(pod.status.podIP).toMatch(/^10\.244\.1\.([2-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-4])$/);
  expect(pod.status.podIPs).toEqual([{ ip: pod.status.podIP }]);
  expect(pod.status.conditions.map((c: any) => [c.type, c.status])).toEqual([
    ['PodReadyToStartContainers', 'True'],
    ['Initialized', 'True'],
    ['Ready', 'True'],
    ['ContainersReady', 'True'],
    ['PodScheduled', 'True'],
  ]);
  const [status] = pod.status.containerStatuses;
  expect(status).toMatchObject({ name: 'app', ready: true, started: true, restartCount: 0, image: 'docker.io/library/nginx:1.27' });
  expect(status.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
  expect(status.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
  // Ready came at least the probe's initial delay after the container started.
  expect(Date.parse(condition(pod, 'Ready').lastTransitionTime) - Date.parse(status.state.running.startedAt)).toBeGreaterThanOrEqual(1000);
  const wide = (await k('get', 'pod', 'web', '-o', 'wide', '--no-headers')).stdout.split(/\s+/);
  expect([wide[1], wide[2], wide[5], wide[6]]).toEqual(['1/1', 'Running', pod.status.podIP, 'kapi-node-1']);

  // Graceful deletion: the kubelet stops the container and removes the pod.
  const deleted = await k('delete', 'pod', 'web', '--timeout=20s');
  expect(deleted.stdout.trim()).toBe('pod "web" deleted');
  expect((await k('get', 'pod', 'web')).stderr).toContain('pods "web" not found');
}, 60_000);

test('restartPolicy Never pods exit after --simulated-run-duration: 0 Succeeds; the exit-code annotation makes one Failed; OnFailure restarts', async () => {
  const never = '  restartPolicy: Never\n';
  await apply(
    [
      podManifest('job-ok', 'kapi-node-2', `${never}  initContainers:\n  - name: setup\n    image: busybox\n`),
      podManifest('job-fail', 'kapi-node-2', never, '{kapi.io/simulated-exit-code: "3"}'),
      podManifest('job-retry', 'kapi-node-2', '  restartPolicy: OnFailure\n', '{kapi.io/simulated-exit-code: "1", kapi.io/simulated-run-duration: 200ms}'),
    ].join('---\n'),
  );
  expect((await k('wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/job-ok', '--timeout=20s')).code).toBe(0);
  expect((await k('wait', '--for=jsonpath={.status.phase}=Failed', 'pod/job-fail', '--timeout=20s')).code).toBe(0);
  const ok = await getJson('pod', 'job-ok');
  expect(ok.status.initContainerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  expect(ok.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  expect(condition(ok, 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
  const failed = await getJson('pod', 'job-fail');
  expect(failed.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
  const table = (await k('get', 'pods', 'job-ok', 'job-fail', '--no-headers')).stdout.trim().split('\n');
  expect(table.map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
    ['job-ok', '0/1', 'Completed'],
    ['job-fail', '0/1', 'Error'],
  ]);
  const retry = await until(
    () => getJson('pod', 'job-retry'),
    (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff',
  );
  expect(retry.status.phase).toBe('Running');
  expect(retry.status.containerStatuses[0]).toMatchObject({ restartCount: 1, lastState: { terminated: { exitCode: 1, reason: 'Error' } } });
  expect(retry.status.containerStatuses[0].state.waiting.message).toBe(
    `back-off 10s restarting failed container=app pod=job-retry_default(${retry.metadata.uid})`,
  );
}, 60_000);

test('a stopped node goes NotReady (Unknown) with the unreachable taints; its pods are evicted unless they tolerate it, honouring tolerationSeconds', async () => {
  const unreachable = (seconds?: number) =>
    `  tolerations:\n  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute${seconds === undefined ? '' : `, tolerationSeconds: ${seconds}`}}\n`;
  await apply(
    [podManifest('plain', 'kapi-node-0'), podManifest('brief', 'kapi-node-0', unreachable(4)), podManifest('forever', 'kapi-node-0', unreachable())].join(
      '---\n',
    ),
  );
  expect((await k('wait', '--for=condition=Ready', 'pod/plain', 'pod/brief', 'pod/forever', '--timeout=20s')).code).toBe(0);

  expect((await k('annotate', 'node', 'kapi-node-0', 'kapi.io/simulated-node-stopped=true')).code).toBe(0);
  const stopped = await until(
    () => getJson('node', 'kapi-node-0'),
    (n) => (n.spec?.taints ?? []).some((t: any) => t.effect === 'NoExecute'),
    40_000,
  );
  expect(condition(stopped, 'Ready')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
  expect(condition(stopped, 'MemoryPressure')?.status).toBe('Unknown');
  expect(stopped.spec.taints).toEqual([
    { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: expect.any(String) },
  ]);
  expect((await k('get', 'node', 'kapi-node-0', '--no-headers')).stdout.split(/\s+/)[1]).toBe('NotReady');

  // No toleration: evicted at once (its kubelet is gone, so it stays Terminating).
  const plain = await until(
    () => getJson('pod', 'plain'),
    (p) => !!p.metadata?.deletionTimestamp,
  );
  expect(condition(plain, 'DisruptionTarget')).toMatchObject({
    status: 'True',
    reason: 'DeletionByTaintManager',
    message: 'Taint manager: deleting due to NoExecute taint',
  });
  expect(condition(plain, 'Ready')?.status).toBe('False');
  const brief = await until(
    () => getJson('pod', 'brief'),
    (p) => !!p.metadata?.deletionTimestamp,
  );
  // deletionTimestamp is when the grace period ends: the deletion came at least tolerationSeconds after the taint (whole seconds both).
  const evictedAt = (p: any) => Date.parse(p.metadata.deletionTimestamp) - p.metadata.deletionGracePeriodSeconds * 1000;
  expect(evictedAt(brief) - Date.parse(stopped.spec.taints[1].timeAdded)).toBeGreaterThanOrEqual(3000);
  expect(evictedAt(plain) - Date.parse(stopped.spec.taints[1].timeAdded)).toBeLessThan(3000);
  const forever = await getJson('pod', 'forever');
  expect(forever.metadata.deletionTimestamp).toBeUndefined();
  const events = (await k('get', 'events', '--field-selector=reason=TaintManagerEviction', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}')).stdout;
  expect(events.trim().split('\n').sort()).toEqual(['Marking for deletion Pod default/brief', 'Marking for deletion Pod default/plain']);

  // The kubelet runs again: the node is Ready without the taints, and the evicted pods are gone.
  expect((await k('annotate', 'node', 'kapi-node-0', 'kapi.io/simulated-node-stopped-')).code).toBe(0);
  const back = await until(
    () => getJson('node', 'kapi-node-0'),
    (n) => condition(n, 'Ready')?.status === 'True' && (n.spec?.taints ?? []).length === 0,
  );
  expect(condition(back, 'Ready')?.reason).toBe('KubeletReady');
  const names = await until(
    async () => (await getJson('pods')).items.map((p: any) => p.metadata.name),
    (n: string[]) => !n.includes('plain') && !n.includes('brief'),
  );
  expect(names).toContain('forever');
  expect((await k('wait', '--for=condition=Ready', 'pod/forever', '--timeout=20s')).code).toBe(0);
}, 120_000);

test('startKapi({ simulatedNodes: 2 }) gives a cluster whose nodes are Ready and run pods, seen through client-node', async () => {
  // The machine's testing host, as a user's test process gets it (shared with other test files that use startKapi).
  const report = await new Promise<any>((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'simulated-nodes-flow.mjs')], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`flow failed: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
    );
  });
  expect(report.nodes).toEqual([
    ['kapi-node-0', 'True'],
    ['kapi-node-1', 'True'],
  ]);
  expect(report.pod).toMatchObject({ phase: 'Running', ready: 'True', hostIP: '172.18.0.3' });
  expect(report.pod.podIP).toMatch(/^10\.244\.1\./);
}, 70_000);
