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

/** The events about an object, oldest first, as [source host, reason, field path, message]. */
async function eventsAbout(kind: string, name: string): Promise<string[][]> {
  const list = await getJson('events', '-A', `--field-selector=involvedObject.kind=${kind},involvedObject.name=${name}`);
  return list.items
    .sort((a: any, b: any) => a.metadata.name.localeCompare(b.metadata.name))
    .map((e: any) => [`${e.source.component}/${e.source.host ?? ''}`, e.reason, e.involvedObject.fieldPath ?? '', e.message]);
}

test("kubectl describe shows the kubelet's events: a node's start and conditions, a container's image, creation and start, its back-off, its stop", async () => {
  const image = 'registry.example/kapi-events:1.0';
  const always = 'registry.example/kapi-always';
  const twoContainers = (name: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  nodeName: kapi-node-2\n  containers:\n  - name: app\n    image: ${image}\n  - name: side\n    image: ${always}\n`;
  await apply(twoContainers('ev-1'));
  expect((await k('wait', '--for=condition=Ready', 'pod/ev-1', '--timeout=20s')).code).toBe(0);
  const pulled = (img: string) => `Successfully pulled image "${img}" in 0s (0s including waiting). Image size: 0 bytes.`;
  const kubelet = 'kubelet/kapi-node-2';
  const started = (container: string, pull: string[][]) => [
    ...pull.map(([reason, message]) => [kubelet, reason, `spec.containers{${container}}`, message]),
    [kubelet, 'Created', `spec.containers{${container}}`, 'Container created'],
    [kubelet, 'Started', `spec.containers{${container}}`, 'Container started'],
  ];
  const pulling = (img: string) => [
    ['Pulling', `Pulling image "${img}"`],
    ['Pulled', pulled(img)],
  ];
  // (A pod that names its node is never scheduled: no Scheduled event.)
  const first = await until(
    () => eventsAbout('Pod', 'ev-1'),
    (e) => e.length >= 8,
  );
  expect(first.sort()).toEqual([...started('app', pulling(image)), ...started('side', pulling(always))].sort());

  // The node holds the tagged image now (IfNotPresent); the untagged one is pulled again (Always).
  await apply(twoContainers('ev-2'));
  expect((await k('wait', '--for=condition=Ready', 'pod/ev-2', '--timeout=20s')).code).toBe(0);
  const second = await until(
    () => eventsAbout('Pod', 'ev-2'),
    (e) => e.length >= 7,
  );
  expect(second.sort()).toEqual(
    [
      ...started('app', [['Pulled', `Container image "${image}" already present on machine and can be accessed by the pod`]]),
      ...started('side', pulling(always)),
    ].sort(),
  );
  const described = (await k('describe', 'pod', 'ev-2')).stdout;
  expect(described).toMatch(/Normal\s+Started\s+\S+\s+kubelet\s+.*Container started/);

  // A graceful deletion stops each running container.
  expect((await k('delete', 'pod', 'ev-1', '--wait=false')).code).toBe(0);
  const stopping = await until(
    async () => (await eventsAbout('Pod', 'ev-1')).filter((e) => e[1] === 'Killing'),
    (e) => e.length === 2,
  );
  expect(stopping.sort()).toEqual([
    [kubelet, 'Killing', 'spec.containers{app}', 'Stopping container app'],
    [kubelet, 'Killing', 'spec.containers{side}', 'Stopping container side'],
  ]);

  // A container that keeps failing waits out a back-off (its first restart comes at once).
  await apply(
    podManifest('ev-crash', 'kapi-node-2', '', '{kapi.io/simulated-exit-code: "1", kapi.io/simulated-run-duration: 200ms}').replace('nginx:1.27', image),
  );
  const crashing = await until(
    async () => (await eventsAbout('Pod', 'ev-crash')).filter((e) => e[1] === 'BackOff'),
    (e) => e.length === 1,
  );
  const pod = await getJson('pod', 'ev-crash');
  expect(crashing).toEqual([
    [kubelet, 'BackOff', 'spec.containers{app}', `Back-off restarting failed container app in pod ev-crash_default(${pod.metadata.uid})`],
  ]);
  // The restart's events repeat the first run's: counted on them, as client-go's correlator does.
  const restarted = await until(
    () => getJson('events', '--field-selector=involvedObject.name=ev-crash,reason=Started'),
    (list) => list.items?.[0]?.count === 2,
  );
  expect(restarted.items).toHaveLength(1);

  // The node: its kubelet's start and first status (its nodeRef's UID is the node's name), and the node controller's registration.
  const node = await until(
    () => eventsAbout('Node', 'kapi-node-2'),
    (e) => e.length >= 6,
  );
  expect(node.sort()).toEqual(
    [
      [kubelet, 'Starting', '', 'Starting kubelet.'],
      [kubelet, 'NodeAllocatableEnforced', '', 'Updated Node Allocatable limit across pods'],
      [kubelet, 'NodeHasSufficientMemory', '', 'Node kapi-node-2 status is now: NodeHasSufficientMemory'],
      [kubelet, 'NodeHasNoDiskPressure', '', 'Node kapi-node-2 status is now: NodeHasNoDiskPressure'],
      [kubelet, 'NodeHasSufficientPID', '', 'Node kapi-node-2 status is now: NodeHasSufficientPID'],
      [
        `node-controller/${node.find((e) => e[1] === 'RegisteredNode')?.[0].split('/')[1]}`,
        'RegisteredNode',
        '',
        'Node kapi-node-2 event: Registered Node kapi-node-2 in Controller',
      ],
    ].sort(),
  );
  const nodeEvents = await getJson('events', '--field-selector=involvedObject.kind=Node,involvedObject.name=kapi-node-2,reason=Starting');
  expect(nodeEvents.items[0].involvedObject).toEqual({ kind: 'Node', name: 'kapi-node-2', uid: 'kapi-node-2' });
  // Deleted without a grace period, a pod is first marked (grace 0) and then removed in the same request; its kubelet sees the mark and kills its containers.
  expect((await k('delete', 'pod', 'ev-2', '--grace-period=0', '--force')).code).toBe(0);
  const forced = await until(
    async () => (await eventsAbout('Pod', 'ev-2')).filter((e) => e[1] === 'Killing'),
    (e) => e.length === 2,
  );
  expect(forced.sort()).toEqual([
    [kubelet, 'Killing', 'spec.containers{app}', 'Stopping container app'],
    [kubelet, 'Killing', 'spec.containers{side}', 'Stopping container side'],
  ]);
  expect((await k('delete', 'pod', 'ev-crash', '--wait=false')).code).toBe(0);
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

/** A plain-HTTP request as the admin (the insecure port); the answer's status and JSON body. */
async function http(method: string, urlPath: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const res = await fetch(`${kapi.url}${urlPath}`, {
    method,
    headers: { 'content-type': contentType },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const invalidPod = (name: string, causes: string[]) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `Pod "${name}" is invalid: ${causes.length === 1 ? causes[0] : `[${causes.join(', ')}]`}`,
  reason: 'Invalid',
  details: expect.objectContaining({ name, kind: 'Pod' }),
  code: 422,
});

test('discovery lists pods/ephemeralcontainers and pods/resize with get, patch and update, kind Pod', async () => {
  const { body } = await http('GET', '/api/v1');
  const subs = body.resources.filter((r: any) => r.name === 'pods/ephemeralcontainers' || r.name === 'pods/resize');
  expect(subs).toEqual([
    { name: 'pods/ephemeralcontainers', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
    { name: 'pods/resize', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
  ]);
});

test('kubectl debug adds an ephemeral container the kubelet runs; it can be neither removed nor changed, and needs its own RBAC verb', async () => {
  await apply(podManifest('dbg-target', 'kapi-node-1'));
  expect((await k('wait', '--for=condition=Ready', 'pod/dbg-target', '--timeout=20s')).code).toBe(0);
  const debug = await k('debug', 'dbg-target', '--image=busybox:1.36', '--target=app', '-c', 'dbg');
  expect(debug.code).toBe(0);
  expect(
    (await k('get', 'pod', 'dbg-target', '-o', 'jsonpath={.spec.ephemeralContainers[*].name}/{.spec.ephemeralContainers[0].targetContainerName}')).stdout,
  ).toBe('dbg/app');
  const running = await until(
    () => getJson('pod', 'dbg-target'),
    (p) => !!p.status?.ephemeralContainerStatuses?.[0]?.state?.running,
  );
  expect(running.status.ephemeralContainerStatuses[0]).toMatchObject({ name: 'dbg', image: 'docker.io/library/busybox:1.36', restartCount: 0 });
  expect(running.metadata.generation).toBe(2);

  const path = '/api/v1/namespaces/default/pods/dbg-target/ephemeralcontainers';
  const current = (await http('GET', path)).body;
  expect(current.kind).toBe('Pod');
  const removed = await http('PUT', path, { ...current, spec: { ...current.spec, ephemeralContainers: [] } });
  expect(removed.status).toBe(422);
  expect(removed.body).toEqual(invalidPod('dbg-target', ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n']));
  const changed = await http(
    'PATCH',
    path,
    { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox:1.37' }] } },
    'application/strategic-merge-patch+json',
  );
  expect(changed.status).toBe(422);
  expect(changed.body.message).toBe(
    'Pod "dbg-target" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed\n',
  );
  const bad = await http(
    'PATCH',
    path,
    {
      spec: {
        ephemeralContainers: [
          { name: 'app', image: 'busybox', targetContainerName: 'nope', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } },
        ],
      },
    },
    'application/strategic-merge-patch+json',
  );
  expect(bad.body).toEqual(
    invalidPod('dbg-target', [
      'spec.ephemeralContainers[0].name: Duplicate value: "app"',
      'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"',
      'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container',
    ]),
  );
  // The pod itself cannot change them, nor be created with them.
  const viaPod = await k('patch', 'pod', 'dbg-target', '--type=json', '-p', '[{"op":"remove","path":"/spec/ephemeralContainers"}]');
  expect(viaPod.stderr).toContain('spec: Forbidden: pod updates may not change fields other than');
  const created = await http('POST', '/api/v1/namespaces/default/pods', {
    metadata: { name: 'born-debugged' },
    spec: { containers: [{ name: 'app', image: 'nginx' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] },
  });
  expect(created.body.message).toBe('Pod "born-debugged" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create');

  // A user who may update pods may not add ephemeral containers: that is its own verb on pods/ephemeralcontainers.
  expect((await k('create', 'role', 'pod-editor', '--verb=get,update,patch', '--resource=pods')).code).toBe(0);
  expect((await k('create', 'rolebinding', 'pod-editor', '--role=pod-editor', '--user=dana')).code).toBe(0);
  await until(
    async () => (await k('auth', 'can-i', 'patch', 'pods', '--as=dana')).stdout,
    (out) => out === 'yes\n',
  );
  const denied = await k('debug', 'dbg-target', '--image=busybox', '-c', 'dbg2', '--as=dana');
  expect(denied.code).not.toBe(0);
  expect(denied.stderr).toContain(
    'pods "dbg-target" is forbidden: User "dana" cannot patch resource "pods/ephemeralcontainers" in API group "" in the namespace "default"',
  );
  const resizeDenied = await k(
    'patch',
    'pod',
    'dbg-target',
    '--subresource=resize',
    '--as=dana',
    '-p',
    '{"spec":{"containers":[{"name":"app","resources":{}}]}}',
  );
  expect(resizeDenied.stderr).toContain('User "dana" cannot get resource "pods/resize" in API group "" in the namespace "default"');
}, 60_000);

test("a service account that enforces mountable secrets limits what pods and their ephemeral containers reference, in kube's answers", async () => {
  const sa = {
    metadata: { name: 'locked', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'True' } },
    secrets: [{ name: 'allowed' }],
    imagePullSecrets: [{ name: 'pull' }],
  };
  expect((await http('POST', '/api/v1/namespaces/default/serviceaccounts', sa)).status).toBe(201);
  const pod = (name: string, container: Record<string, unknown>) => ({
    metadata: { name },
    spec: { serviceAccountName: 'locked', nodeName: 'kapi-node-2', containers: [{ name: 'app', image: 'nginx', ...container }] },
  });
  const refused = await http('POST', '/api/v1/namespaces/default/pods', pod('sa-bad', { envFrom: [{ secretRef: { name: 'other' } }] }));
  expect(refused.status).toBe(403);
  expect(refused.body.message).toBe(
    'pods "sa-bad" is forbidden: container app with envFrom referencing secret.secretName="other" is not allowed because service account locked does not reference that secret',
  );
  const pulls = await http('POST', '/api/v1/namespaces/default/pods', {
    ...pod('sa-pull', {}),
    spec: { ...pod('sa-pull', {}).spec, imagePullSecrets: [{ name: 'elsewhere' }] },
  });
  expect(pulls.body.message).toBe(
    'pods "sa-pull" is forbidden: imagePullSecrets[0].name="elsewhere" is not allowed because service account locked does not reference that imagePullSecret',
  );
  expect((await http('POST', '/api/v1/namespaces/default/pods', pod('sa-ok', { envFrom: [{ secretRef: { name: 'allowed' } }] }))).status).toBe(201);

  const path = '/api/v1/namespaces/default/pods/sa-ok/ephemeralcontainers';
  const add = (env: Record<string, unknown>) =>
    http('PATCH', path, { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox', ...env }] } }, 'application/strategic-merge-patch+json');
  // kube's plugin returns this one as a plain error: a 500 Failure without a reason.
  const sneaky = await add({ env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'other', key: 'token' } } }] });
  expect(sneaky.status).toBe(500);
  expect(sneaky.body).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'ephemeral container dbg with envVar TOKEN referencing secret.secretName="other" is not allowed because service account locked does not reference that secret',
    code: 500,
  });
  expect((await k('get', 'pod', 'sa-ok', '-o', 'jsonpath={.spec.ephemeralContainers}')).stdout).toBe('');
  const fine = await add({ envFrom: [{ secretRef: { name: 'allowed' } }] });
  expect(fine.status).toBe(200);
  expect(fine.body.spec.ephemeralContainers.map((c: any) => c.name)).toEqual(['dbg']);
});

test('kubectl patch --subresource=resize changes cpu and memory in place and the kubelet applies them; anything else is refused as kube refuses it', async () => {
  const resources = '    resources:\n      requests: {cpu: 100m, memory: 64Mi}\n      limits: {cpu: 500m, memory: 128Mi}\n';
  await apply(podManifest('resized', 'kapi-node-1').replace('    image: nginx:1.27\n', `    image: nginx:1.27\n${resources}`));
  expect((await k('wait', '--for=condition=Ready', 'pod/resized', '--timeout=20s')).code).toBe(0);
  const patch = (p: object) => k('patch', 'pod', 'resized', '--subresource=resize', '-p', JSON.stringify({ spec: { containers: [{ name: 'app', ...p }] } }));
  const res = await patch({ resources: { requests: { cpu: '200m' }, limits: { cpu: '800m', memory: '256Mi' } } });
  expect(res.stderr).toBe('');
  expect(res.stdout.trim()).toBe('pod/resized patched');
  const pod = await until(
    () => getJson('pod', 'resized'),
    (p) => p.status?.containerStatuses?.[0]?.resources?.limits?.cpu === '800m',
  );
  expect(pod.spec.containers[0].resources).toEqual({ requests: { cpu: '200m', memory: '64Mi' }, limits: { cpu: '800m', memory: '256Mi' } });
  expect(pod.status.containerStatuses[0].resources).toEqual(pod.spec.containers[0].resources);
  expect(pod.metadata.generation).toBe(2);
  expect(pod.status.qosClass).toBe('Burstable');
  // Beyond the node's 8 cpus: the kubelet leaves it pending as Infeasible and keeps what it had.
  expect((await patch({ resources: { requests: { cpu: '10' }, limits: { cpu: '10' } } })).code).toBe(0);
  const pending = await until(
    () => getJson('pod', 'resized'),
    (p) => condition(p, 'PodResizePending')?.status === 'True',
  );
  expect(condition(pending, 'PodResizePending')).toMatchObject({
    reason: 'Infeasible',
    message: "Node didn't have enough capacity: cpu, requested: 10000, capacity: 8000",
  });
  expect(pending.status.containerStatuses[0].resources.limits.cpu).toBe('800m');
  expect((await patch({ resources: { requests: { cpu: '200m' }, limits: { cpu: '800m' } } })).code).toBe(0);
  await until(
    () => getJson('pod', 'resized'),
    (p) => !condition(p, 'PodResizePending'),
  );

  const refused = async (p: object) => {
    const out = await patch(p);
    expect(out.code).not.toBe(0);
    return out.stderr.trim();
  };
  expect(await refused({ resources: { requests: { cpu: '800m', memory: '256Mi' } } })).toBe(
    'The Pod "resized" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing',
  );
  expect(await refused({ resources: { requests: { 'ephemeral-storage': '1Gi' } } })).toBe(
    'The Pod "resized" is invalid: spec: Forbidden: only cpu and memory resources are mutable',
  );
  expect(await refused({ resources: { limits: { memory: '200Mi' } } })).toBe(
    'The Pod "resized" is invalid: spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer',
  );
  const removed = await http(
    'PATCH',
    '/api/v1/namespaces/default/pods/resized/resize',
    [{ op: 'remove', path: '/spec/containers/0/resources/limits/cpu' }],
    'application/json-patch+json',
  );
  expect(removed.body).toEqual(invalidPod('resized', ['spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed']));
  // Only the resources go through resize: the image of the same write is left as it was.
  expect((await patch({ image: 'nginx:1.28', resources: { requests: { cpu: '300m' } } })).code).toBe(0);
  expect((await k('get', 'pod', 'resized', '-o', 'jsonpath={.spec.containers[0].image} {.spec.containers[0].resources.requests.cpu}')).stdout).toBe(
    'nginx:1.27 300m',
  );
  // And the pod itself cannot change them.
  const viaPod = await k('patch', 'pod', 'resized', '-p', '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"400m"}}}]}}');
  expect(viaPod.stderr).toContain('spec: Forbidden: pod updates may not change fields other than');
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

  // Its kubelet started again (its Starting counted twice), and the Ready condition it turned back to True is a NodeReady event.
  const nodeEvent = (reason: string, ok: (list: any) => boolean) =>
    until(() => getJson('events', `--field-selector=involvedObject.kind=Node,involvedObject.name=kapi-node-0,reason=${reason}`), ok);
  const ready = await nodeEvent('NodeReady', (list) => list.items?.length === 1);
  expect(ready.items[0]).toMatchObject({ message: 'Node kapi-node-0 status is now: NodeReady', source: { component: 'kubelet', host: 'kapi-node-0' } });
  await nodeEvent('Starting', (list) => list.items?.[0]?.count === 2);
  // Each start sets the first status on a node without conditions, and the return from Unknown turns it healthy again: three.
  await nodeEvent('NodeHasSufficientMemory', (list) => list.items?.[0]?.count === 3);
  const notReady = await nodeEvent('NodeNotReady', (list) => list.items?.length === 1);
  expect(notReady.items[0]).toMatchObject({ message: 'Node kapi-node-0 status is now: NodeNotReady', source: { component: 'node-controller' } });
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
