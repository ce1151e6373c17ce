import { serviceFor } from '../harness/extension-apiserver';
import { Api } from '../harness/http';
import { startMetricsServer, type MetricsServer, type PodUsage } from '../harness/metrics-server';
import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/**
 * Issue 22's flows end to end: one server with three simulated nodes, its scheduler and the
 * workload controllers, driven by real kubectl only. Nothing in the test plays a kubelet or a
 * controller: every pod is scheduled, started and made ready by kapi itself. The one stand-in is
 * metrics-server's, behind an APIService, for the horizontal pod autoscaler.
 */

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);

async function ok(...args: string[]): Promise<string> {
  const res = await k(...args);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

async function apply(manifest: string): Promise<void> {
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(res.stderr).toBe('');
}

const json = async (...args: string[]): Promise<any> => JSON.parse(await ok('get', ...args, '-o', 'json'));

/** Polls `read` until `done` holds of its result; fails with the last result after the deadline. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch((err: unknown) => err as T);
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms; last: ${JSON.stringify(value, null, 1).slice(0, 1500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ready = (pod: any): boolean => (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
const readyPods = async (selector: string): Promise<any[]> =>
  (await json('pods', '-l', selector)).items.filter((p: any) => ready(p) && !p.metadata.deletionTimestamp);

beforeAll(async () => {
  kapi = await startServerProcess(['--simulated-nodes=3', '--simulated-run-duration=300ms', '--horizontal-pod-autoscaler-sync-period=1s']);
  await ok('wait', '--for=condition=Ready', 'node', '--all', '--timeout=30s');
}, 60_000);

afterAll(async () => {
  await kapi.stop();
});

test("the controllers', scheduler's and simulated kubelets' informers list from the watch cache, as client-go's reflector lists at resourceVersion 0: etcd served none of their lists of pods", async () => {
  // The first test: no client has listed pods yet (kubectl's lists ask for the latest, which etcd answers here).
  const metrics = (await new Api(kapi.url).get('/metrics')).text;
  const podLists = metrics.split('\n').find((l) => l.startsWith('etcd_request_duration_seconds_count{operation="list",type="pods"}'));
  // About 15 informers follow pods here; asking for the latest, each listed them from etcd and kept its own copies.
  expect(Number(podLists?.split(' ')[1] ?? 0)).toBe(0);
});

test('the simulated kubelets write a status only when it changes: a rollout reads no pod back from etcd', async () => {
  const podGets = async (): Promise<number> => {
    const metrics = (await new Api(kapi.url).get('/metrics')).text;
    const line = metrics.split('\n').find((l) => l.startsWith('etcd_request_duration_seconds_count{operation="get",type="pods"}'));
    return Number(line?.split(' ')[1] ?? 0);
  };
  const before = await podGets();
  await ok('create', 'deployment', 'steady', '--image=nginx', '--replicas=4');
  await ok('rollout', 'status', 'deployment/steady', '--timeout=30s');
  await new Promise((r) => setTimeout(r, 1000));
  // A write from the cache's copy that changes nothing is checked against etcd's value (kube's
  // GuaranteedUpdate): a kubelet that compared its status without Go's zero values did that on every sync.
  expect((await podGets()) - before).toBe(0);
  await ok('delete', 'deployment', 'steady', '--wait=true');
}, 60_000);

test('a Deployment becomes Available on its own: rollout status, set image, rollout undo --to-revision=1, scale to 5 spread over the nodes, a Service with 5 ready endpoints', async () => {
  const started = Date.now();
  await ok('create', 'deployment', 'web', '--image=nginx', '--replicas=3');
  await ok('rollout', 'status', 'deployment/web', '--timeout=30s');
  await ok('wait', '--for=condition=Available', 'deployment/web', '--timeout=30s');
  // The target is under a second on a quiet machine; the bound here only catches a stall.
  expect(Date.now() - started).toBeLessThan(30_000);
  const pods = await readyPods('app=web');
  expect(pods).toHaveLength(3);
  for (const pod of pods) {
    expect(pod.spec.nodeName).toMatch(/^kapi-node-[0-2]$/);
    expect(pod.status.phase).toBe('Running');
    expect(pod.status.podIP).toMatch(/^10\.244\.[0-2]\.\d+$/);
  }

  await ok('set', 'image', 'deployment/web', 'nginx=nginx:1.27');
  await ok('rollout', 'status', 'deployment/web', '--timeout=30s');
  expect(await ok('rollout', 'history', 'deployment/web')).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
  // kubectl's own test/cmd: `kubectl rollout undo deploy/deploy --to-revision=1`
  await ok('rollout', 'undo', 'deployment/web', '--to-revision=1');
  await ok('rollout', 'status', 'deployment/web', '--timeout=30s');
  expect((await json('deployment', 'web')).spec.template.spec.containers[0].image).toBe('nginx');
  expect((await readyPods('app=web')).map((p) => p.spec.containers[0].image)).toEqual(['nginx', 'nginx', 'nginx']);

  await ok('scale', 'deployment/web', '--replicas=5');
  const five = await until(
    () => readyPods('app=web'),
    (p) => p.length === 5,
  );
  // The scheduler's default topology spreading (a soft constraint, as kube's) puts them on every node.
  expect([...new Set(five.map((p) => p.spec.nodeName))].sort()).toEqual(['kapi-node-0', 'kapi-node-1', 'kapi-node-2']);

  await ok('expose', 'deployment/web', '--port=80');
  const slices = await until(
    () => json('endpointslices', '-l', 'kubernetes.io/service-name=web'),
    (list) => list.items?.length === 1 && (list.items[0].endpoints ?? []).filter((e: any) => e.conditions.ready).length === 5,
  );
  const addresses = slices.items[0].endpoints.map((e: any) => e.addresses[0]).sort();
  expect(addresses).toEqual(five.map((p) => p.status.podIP).sort());
}, 120_000);

test('kubectl drain moves the Deployment off a node; the DaemonSet keeps one pod per node; deleting the Deployment removes its ReplicaSets and pods', async () => {
  await apply(`apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent}]}
`);
  await ok('rollout', 'status', 'daemonset/agent', '--timeout=30s');
  const agents = await readyPods('app=agent');
  expect(agents.map((p) => p.spec.nodeName).sort()).toEqual(['kapi-node-0', 'kapi-node-1', 'kapi-node-2']);

  await ok('drain', 'kapi-node-0', '--ignore-daemonsets', '--timeout=60s');
  expect((await json('node', 'kapi-node-0')).spec.unschedulable).toBe(true);
  const moved = await until(
    () => readyPods('app=web'),
    (p) => p.length === 5 && p.every((pod) => pod.spec.nodeName !== 'kapi-node-0'),
    60_000,
  );
  expect(new Set(moved.map((p) => p.spec.nodeName))).toEqual(new Set(['kapi-node-1', 'kapi-node-2']));
  // A DaemonSet's pods tolerate unschedulable: drain leaves them.
  expect((await readyPods('app=agent')).map((p) => p.spec.nodeName).sort()).toEqual(['kapi-node-0', 'kapi-node-1', 'kapi-node-2']);
  await ok('uncordon', 'kapi-node-0');

  await ok('delete', 'deployment', 'web');
  await until(
    () => json('replicasets,pods', '-l', 'app=web'),
    (list) => list.items?.length === 0,
  );
}, 150_000);

test('a StatefulSet starts its pods in order; a Job completes; a failing Job reaches its backoffLimit', async () => {
  await apply(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: db}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: done}
spec:
  completions: 2
  parallelism: 2
  template:
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: fails}
spec:
  backoffLimit: 0
  template:
    metadata: {annotations: {kapi.io/simulated-exit-code: "3"}}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
`);
  await ok('rollout', 'status', 'statefulset/db', '--timeout=60s');
  const db = (await json('pods', '-l', 'app=db')).items;
  const readySince = (name: string) =>
    Date.parse(db.find((p: any) => p.metadata.name === name).status.conditions.find((c: any) => c.type === 'Ready').lastTransitionTime);
  const created = (name: string) => Date.parse(db.find((p: any) => p.metadata.name === name).metadata.creationTimestamp);
  // OrderedReady: db-1 is created only once db-0 is Ready, db-2 once db-1 is (timestamps have seconds).
  expect(created('db-1')).toBeGreaterThanOrEqual(readySince('db-0'));
  expect(created('db-2')).toBeGreaterThanOrEqual(readySince('db-1'));

  await ok('wait', '--for=condition=complete', 'job/done', '--timeout=30s');
  expect((await json('job', 'done')).status).toMatchObject({ succeeded: 2 });
  await ok('wait', '--for=condition=failed', 'job/fails', '--timeout=30s');
  const failed = (await json('job', 'fails')).status.conditions.find((c: any) => c.type === 'Failed');
  expect(failed).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
}, 150_000);

test('kubectl autoscale: without metrics.k8s.io the HPA says why; with a metrics server it scales up to its max, then down with a zero stabilization window', async () => {
  await ok('create', 'deployment', 'scaled', '--image=nginx', '--replicas=1');
  await ok('set', 'resources', 'deployment/scaled', '--requests=cpu=100m');
  await ok('rollout', 'status', 'deployment/scaled', '--timeout=30s');
  await ok('autoscale', 'deployment', 'scaled', '--cpu-percent=50', '--min=1', '--max=4');
  const conditions = (hpa: any) => Object.fromEntries((hpa.status?.conditions ?? []).map((c: any) => [c.type, [c.status, c.reason, c.message]]));

  // No APIService serves metrics.k8s.io: kube's texts, word for word.
  const blind = await until(
    () => json('hpa', 'scaled'),
    (hpa) => conditions(hpa).ScalingActive?.[1] === 'FailedGetResourceMetric',
  );
  expect(conditions(blind)).toEqual({
    AbleToScale: ['True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale"],
    ScalingActive: [
      'False',
      'FailedGetResourceMetric',
      'the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)',
    ],
  });
  expect(await ok('get', 'hpa', 'scaled', '--no-headers')).toMatch(/^scaled\s+Deployment\/scaled\s+cpu: <unknown>\/50%\s+1\s+4\s+1\s/);

  // A metrics server behind v1beta1.metrics.k8s.io, answering 150m per pod (150% of the request).
  let perPod = '150m';
  const usage = async (namespace: string, selector: string): Promise<PodUsage[]> =>
    (await json('pods', '-n', namespace, '-l', selector)).items
      .filter((p: any) => p.status?.phase === 'Running')
      .map((p: any) => ({ name: p.metadata.name, containers: [{ name: p.spec.containers[0].name, usage: { cpu: perPod, memory: '10Mi' } }] }));
  const auth = await json('configmap', '-n', 'kube-system', 'extension-apiserver-authentication');
  const metrics: MetricsServer = await startMetricsServer({
    requestHeaderCa: auth.data['requestheader-client-ca-file'],
    allowedNames: JSON.parse(auth.data['requestheader-allowed-names']),
    serviceName: 'metrics-server',
    namespace: 'kube-system',
    usage,
  });
  try {
    const { service, endpoints } = serviceFor('metrics-server', 'kube-system', metrics.port);
    const apiService = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io' },
      spec: {
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        service: { namespace: 'kube-system', name: 'metrics-server' },
        caBundle: metrics.caBundle,
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    };
    // Endpoints by hand (kube warns that v1 Endpoints is deprecated): the stand-in listens on 127.0.0.1.
    const applied = await kubectl(kapi.url, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [service, endpoints, apiService] }));
    expect(applied.code).toBe(0);

    // 150% against a 50% target asks for three times the replicas: 1 → 3 (within the doubling-or-four limit), then 3 → 4 (the max).
    const atMax = await until(
      () => json('hpa', 'scaled'),
      (hpa) => hpa.status?.currentReplicas === 4,
      60_000,
    );
    expect(atMax.status.currentMetrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 150, averageValue: '150m' } } }]);
    expect(conditions(atMax).ScalingActive).toEqual([
      'True',
      'ValidMetricFound',
      'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
    ]);
    expect(conditions(atMax).ScalingLimited).toEqual(['True', 'TooManyReplicas', 'the desired replica count is more than the maximum replica count']);
    expect(atMax.status.lastScaleTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await json('deployment', 'scaled')).spec.replicas).toBe(4);
    const rescales = async () =>
      (await json('events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=scaled')).items
        .filter((e: any) => e.reason === 'SuccessfulRescale')
        .map((e: any) => e.message);
    expect(await rescales()).toEqual([
      'New size: 3; reason: cpu resource utilization (percentage of request) above target',
      'New size: 4; reason: cpu resource utilization (percentage of request) above target',
    ]);
    // The aggregator asked as the controller manager, through the front proxy.
    expect(new Set(metrics.callers)).toEqual(new Set(['system:kube-controller-manager']));

    // Load falls to 10%: with scaleDown's window at zero, the behavior's 100%-per-15s policy lets it fall to the min at once.
    perPod = '10m';
    await ok('patch', 'hpa', 'scaled', '--type=merge', '-p', '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":0}}}}');
    const down = await until(
      () => json('hpa', 'scaled'),
      (hpa) => hpa.status?.currentReplicas === 1 && hpa.status?.desiredReplicas === 1,
      60_000,
    );
    expect(down.spec.behavior.scaleDown).toEqual({
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    });
    expect((await rescales()).at(-1)).toBe('New size: 1; reason: All metrics below target');
    expect(conditions(down).ScalingLimited).toEqual(['False', 'DesiredWithinRange', 'the desired count is within the acceptable range']);
  } finally {
    await metrics.close();
  }
}, 150_000);
