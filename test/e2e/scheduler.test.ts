import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/** The in-process kube-scheduler (--scheduler) against Nodes created through the API, seen through kubectl. */

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);
const apply = (yaml: string) => kubectl(kapi.url, ['apply', '-f', '-'], yaml);

beforeAll(async () => {
  // The test's Nodes have no kubelet to renew their Leases: node lifecycle, which would mark them
  // unreachable after its startup grace period, stays off, and the test lifts the not-ready taint.
  kapi = await startServerProcess(['--scheduler', '--controllers=*,-node-lifecycle-controller,-taint-eviction-controller']);
  for (const node of [
    nodeYaml('n1', { zone: 'a', disk: 'ssd' }, '2'),
    nodeYaml('n2', { zone: 'b' }, '2'),
    nodeYaml('cp', { zone: 'a', 'node-role.kubernetes.io/control-plane': '' }, '8', '[{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]'),
  ]) {
    await addNode(node);
  }
});

/** A Node as a kubelet registers one; admission gives it the not-ready taint, which node lifecycle would lift: here the test does. */
async function addNode(yaml: string): Promise<void> {
  expect((await apply(yaml)).code).toBe(0);
  const name = /name: (\S+)/.exec(yaml)![1];
  expect((await k('taint', 'node', name, 'node.kubernetes.io/not-ready:NoSchedule-')).code).toBe(0);
}

afterAll(async () => {
  await kapi.stop();
});

function nodeYaml(name: string, labels: Record<string, string>, cpu: string, taints = '[]'): string {
  const allLabels = { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': labels.zone, ...labels };
  delete (allLabels as Record<string, string>).zone;
  const labelLines = Object.entries(allLabels)
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join('\n');
  return `apiVersion: v1
kind: Node
metadata:
  name: ${name}
  labels:
${labelLines}
spec:
  taints: ${taints}
status:
  capacity: {cpu: "${cpu}", memory: 4Gi, pods: "110"}
  allocatable: {cpu: "${cpu}", memory: 4Gi, pods: "110"}
`;
}

/** A pod manifest: `spec` is YAML for the pod spec beyond its one container (indented two spaces). */
function podYaml(name: string, spec = '', container = '', labels = '{}'): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: ${labels}
spec:
${spec}  containers:
  - name: app
    image: nginx
${container}`;
}

async function nodeOf(pod: string): Promise<string> {
  return (await k('get', 'pod', pod, '-o', 'jsonpath={.spec.nodeName}')).stdout;
}

/** Polls until every pod is bound (bounded), giving their nodes. */
async function boundNodes(pods: string[], timeoutMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const nodes = await Promise.all(pods.map(nodeOf));
    if (nodes.every((n) => n !== '') || Date.now() > deadline) return nodes;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Polls until the pod's PodScheduled condition is False, giving it. */
async function unschedulable(pod: string): Promise<{ reason?: string; message?: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const out = (await k('get', 'pod', pod, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")]}')).stdout;
    const condition = out ? (JSON.parse(out) as { status: string; reason?: string; message?: string }) : null;
    if ((condition && condition.status === 'False') || Date.now() > deadline) return condition ?? {};
    await new Promise((r) => setTimeout(r, 200));
  }
}

const forceDelete = (...pods: string[]) => k('delete', 'pod', ...pods, '--grace-period=0', '--force', '--wait=false');

test('nodeSelector, required node affinity, tolerations and requests decide the node; a pod nothing fits waits with kube’s message until a node fits', async () => {
  const input = [
    podYaml('sel', '  nodeSelector: {disk: ssd}\n'),
    podYaml(
      'aff',
      '  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [b]}]\n',
    ),
    podYaml(
      'tol',
      '  nodeSelector: {kubernetes.io/hostname: cp}\n  tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]\n',
    ),
    podYaml('big', '', '    resources: {requests: {cpu: "3"}}\n'),
  ].join('---\n');
  expect((await apply(input)).code).toBe(0);
  expect(await boundNodes(['sel', 'aff', 'tol'])).toEqual(['n1', 'n2', 'cp']);

  const message =
    '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
  expect(await unschedulable('big')).toMatchObject({ reason: 'Unschedulable', message });
  expect(await nodeOf('big')).toBe('');
  const events = await k(
    'get',
    'events',
    '--field-selector',
    'involvedObject.name=big',
    '-o',
    'jsonpath={range .items[*]}{.type}|{.reason}|{.source.component}|{.message}{"\\n"}{end}',
  );
  expect(events.stdout.split('\n')).toContain(`Warning|FailedScheduling|default-scheduler|${message}`);
  const described = (await k('describe', 'pod', 'big')).stdout;
  expect(described).toMatch(/Status:\s+Pending/);
  expect(described).toMatch(/PodScheduled\s+False/);
  expect(described).toMatch(
    /Warning\s+FailedScheduling\s+.*\s+default-scheduler\s+0\/3 nodes are available: 1 node\(s\) had untolerated taint\(s\), 2 Insufficient cpu\./,
  );

  // A node with room: the waiting pod goes there (the queue moves it back on the node's arrival).
  await addNode(nodeYaml('n3', { zone: 'c' }, '4'));
  expect(await boundNodes(['big'])).toEqual(['n3']);
  const scheduled = await k('get', 'events', '--field-selector', 'involvedObject.name=big,reason=Scheduled', '-o', 'jsonpath={.items[*].message}');
  expect(scheduled.stdout).toBe('Successfully assigned default/big to n3');
  const condition = JSON.parse((await k('get', 'pod', 'big', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")]}')).stdout);
  expect(condition).toMatchObject({ type: 'PodScheduled', status: 'True' });
  await forceDelete('sel', 'aff', 'tol', 'big');
});

test('host ports: one pod per node holds a port; the next waits and is scheduled once a holder goes', async () => {
  const withPort = (name: string) => podYaml(name, '', '    ports: [{containerPort: 80, hostPort: 8080}]\n');
  expect((await apply(['p1', 'p2', 'p3'].map(withPort).join('---\n'))).code).toBe(0);
  const nodes = await boundNodes(['p1', 'p2', 'p3']);
  expect([...nodes].sort()).toEqual(['n1', 'n2', 'n3']);
  expect((await apply(withPort('p4'))).code).toBe(0);
  expect(await unschedulable('p4')).toMatchObject({
    reason: 'Unschedulable',
    message:
      "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) didn't have free ports for the requested pod ports. no new claims to deallocate, preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.",
  });
  await forceDelete('p2');
  expect(await boundNodes(['p4'])).toEqual([nodes[1]]);
  await forceDelete('p1', 'p3', 'p4');
});

test('required pod anti-affinity puts one pod per host; topology spread (DoNotSchedule) balances zones', async () => {
  const anti = (name: string) =>
    podYaml(
      name,
      '  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        topologyKey: kubernetes.io/hostname\n',
      '',
      '{app: db}',
    );
  expect((await apply(['db1', 'db2', 'db3'].map(anti).join('---\n'))).code).toBe(0);
  expect(new Set(await boundNodes(['db1', 'db2', 'db3']))).toEqual(new Set(['n1', 'n2', 'n3']));
  expect((await apply(anti('db4'))).code).toBe(0);
  expect((await unschedulable('db4')).message).toBe(
    "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.",
  );
  await forceDelete('db1', 'db2', 'db3', 'db4');

  // Zones a (n1 and the tainted cp, whose pods count: nodeTaintsPolicy Ignore), b (n2), c (n3).
  const spread = (name: string) =>
    podYaml(
      name,
      '  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: topology.kubernetes.io/zone\n    whenUnsatisfiable: DoNotSchedule\n    labelSelector: {matchLabels: {app: web}}\n',
      '',
      '{app: web}',
    );
  const names = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
  for (const name of names) {
    // One at a time, so each sees the ones before it bound.
    expect((await apply(spread(name))).code).toBe(0);
    expect((await boundNodes([name]))[0]).not.toBe('');
  }
  const zones = (await boundNodes(names)).map((n) => ({ n1: 'a', n2: 'b', n3: 'c' })[n]);
  expect(zones.filter((z) => z === 'a')).toHaveLength(2);
  expect(zones.filter((z) => z === 'b')).toHaveLength(2);
  expect(zones.filter((z) => z === 'c')).toHaveLength(2);
  await forceDelete(...names);
});

test('1,000 pods over 100 nodes are bound within seconds', async () => {
  const send = async (method: string, path: string, body: unknown, type = 'application/json') => {
    const res = await fetch(`${kapi.url}${path}`, { method, headers: { 'content-type': type }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  const post = (path: string, body: unknown) => send('POST', path, body);
  const inBatches = async (count: number, make: (i: number) => Promise<void>) => {
    for (let i = 0; i < count; i += 50) await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => make(i + j)));
  };
  await post('/api/v1/namespaces', { metadata: { name: 'load' } });
  await inBatches(100, (i) =>
    post('/api/v1/nodes', {
      metadata: { name: `load-${i}`, labels: { 'kubernetes.io/hostname': `load-${i}`, load: 'yes' } },
      status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' }, allocatable: { cpu: '4', memory: '16Gi', pods: '110' } },
    }),
  );
  await inBatches(100, (i) => send('PATCH', `/api/v1/nodes/load-${i}`, { spec: { taints: null } }, 'application/merge-patch+json'));
  const started = Date.now();
  await inBatches(1000, (i) =>
    post('/api/v1/namespaces/load/pods', {
      metadata: { name: `p-${i}`, labels: { app: 'load' } },
      spec: { nodeSelector: { load: 'yes' }, containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
    }),
  );
  const created = Date.now() - started;
  const deadline = started + 60_000;
  let perNode = new Map<string, number>();
  let bound = 0;
  while (Date.now() < deadline) {
    const list = (await (await fetch(`${kapi.url}/api/v1/namespaces/load/pods`)).json()) as { items: { spec: { nodeName?: string } }[] };
    perNode = new Map();
    for (const p of list.items) if (p.spec.nodeName) perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
    bound = [...perNode.values()].reduce((a, b) => a + b, 0);
    if (bound === 1000) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const afterCreate = Date.now() - started - created;
  console.log(`1000 pods created in ${created} ms; all bound ${afterCreate} ms after the last create`);
  expect(bound).toBe(1000);
  // LeastAllocated spreads equal pods evenly: 10 per node, give or take the ties.
  expect(perNode.size).toBe(100);
  expect(Math.max(...perNode.values())).toBeLessThanOrEqual(12);
  // Creating them is the API server's work; binding the last of them follows within seconds (the bound is loose: the machine is shared).
  expect(afterCreate).toBeLessThan(30_000);
}, 120_000);
