import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * The Priority and DefaultTolerationSeconds admission plugins from outside: kube's system
 * PriorityClasses exist from the start, a pod's class resolves to its priority and preemption
 * policy (or the global default's), unknown classes and preset values are refused with kube's
 * messages, only one class may be the global default; pods get the not-ready and unreachable
 * NoExecute tolerations, for as long as the flags say.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let tuned: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  [server, tuned] = await Promise.all([
    startTestServer(),
    startTestServer({ defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 120, disableAdmissionPlugins: ['Priority'] }),
  ]);
  api = new Api(server.url);
});

afterAll(async () => {
  await Promise.all([server.close(), tuned.close()]);
});

const PCS = '/apis/scheduling.k8s.io/v1/priorityclasses';
const PODS = '/api/v1/namespaces/default/pods';
const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const priorityClass = (name: string, value: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
  ...extra,
});

/** Waits until the watch cache (what admission reads, as kube's informers) has the class. */
const cached = (name: string) =>
  eventually(`${name} in the cache`, async () =>
    (await api.get(`${PCS}?resourceVersion=0`)).body.items.some((pc: any) => pc.metadata.name === name) ? true : undefined,
  );

test("kube's system PriorityClasses are bootstrapped and resolve for pods", async () => {
  const node = await api.get(`${PCS}/system-node-critical`);
  expect(node.status).toBe(200);
  expect(node.body).toMatchObject({
    value: 2_000_001_000,
    preemptionPolicy: 'PreemptLowerPriority',
    description: 'Used for system critical pods that must not be moved from their current node.',
  });
  expect(node.body.globalDefault).toBeUndefined();
  expect((await api.get(`${PCS}/system-cluster-critical`)).body).toMatchObject({
    value: 2_000_000_000,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  });
  const res = await api.post(PODS, pod('critical', { priorityClassName: 'system-cluster-critical' }));
  expect(res.status).toBe(201);
  expect(res.body.spec).toMatchObject({ priorityClassName: 'system-cluster-critical', priority: 2_000_000_000, preemptionPolicy: 'PreemptLowerPriority' });
});

test('a class resolves to priority and preemptionPolicy; unknown classes and differing preset values are refused', async () => {
  expect((await api.post(PCS, priorityClass('calm', 1000, { preemptionPolicy: 'Never' }))).status).toBe(201);
  await cached('calm');
  const res = await api.post(PODS, pod('calm-pod', { priorityClassName: 'calm', priority: 1000 }));
  expect(res.status).toBe(201);
  expect(res.body.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'Never' });

  const unknown = await api.post(PODS, pod('lost', { priorityClassName: 'nope' }));
  expect(unknown.status).toBe(403);
  expect(unknown.body).toMatchObject({
    reason: 'Forbidden',
    message: 'pods "lost" is forbidden: no PriorityClass with name nope was found',
    details: { name: 'lost', kind: 'pods' },
  });
  const preset = await api.post(PODS, pod('preset', { priorityClassName: 'calm', priority: 7 }));
  expect(preset.status).toBe(403);
  expect(preset.body.message).toBe(
    'pods "preset" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
  );
  const policy = await api.post(PODS, pod('policy', { priorityClassName: 'calm', preemptionPolicy: 'PreemptLowerPriority' }));
  expect(policy.status).toBe(403);
  expect(policy.body.message).toBe(
    'pods "policy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
  );

  // An update that leaves the fields out keeps what creation set.
  const { priority, preemptionPolicy, ...rest } = res.body.spec;
  expect([priority, preemptionPolicy]).toEqual([1000, 'Never']);
  const updated = await api.put(`${PODS}/calm-pod`, { ...res.body, spec: { ...rest, activeDeadlineSeconds: 30 } });
  expect(updated.status).toBe(200);
  expect(updated.body.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'Never', activeDeadlineSeconds: 30 });
});

test('without a class a pod gets priority 0, then the global default; a second global default is refused', async () => {
  const plain = await api.post(PODS, pod('plain'));
  expect(plain.body.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
  expect(plain.body.spec.priorityClassName).toBeUndefined();

  expect((await api.post(PCS, priorityClass('everyone', 500, { globalDefault: true, preemptionPolicy: 'Never' }))).status).toBe(201);
  await cached('everyone');
  const defaulted = await api.post(PODS, pod('defaulted'));
  expect(defaulted.body.spec).toMatchObject({ priorityClassName: 'everyone', priority: 500, preemptionPolicy: 'Never' });

  const second = await api.post(PCS, priorityClass('second', 10, { globalDefault: true }));
  expect(second.status).toBe(403);
  expect(second.body.message).toBe(
    'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass everyone is already marked as default. Only one default can exist',
  );
  const other = (await api.post(PCS, priorityClass('other', 10))).body;
  const marked = await api.put(`${PCS}/other`, { ...other, globalDefault: true });
  expect(marked.status).toBe(403);
  expect(marked.body.message).toBe(
    'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass everyone is already marked as default. Only one default can exist',
  );
  // The default itself may be updated.
  const current = (await api.get(`${PCS}/everyone`)).body;
  expect((await api.put(`${PCS}/everyone`, { ...current, description: 'for all' })).status).toBe(200);
});

test('DefaultTolerationSeconds adds the NoExecute tolerations a pod lacks, for the flags seconds', async () => {
  const res = await api.post(
    PODS,
    pod('tolerant', { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }] }),
  );
  expect(res.body.spec.tolerations).toEqual([
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  // A toleration of every key and effect covers both taints.
  const all = await api.post(PODS, pod('all', { tolerations: [{ operator: 'Exists' }] }));
  expect(all.body.spec.tolerations).toEqual([{ operator: 'Exists' }]);

  const other = new Api(tuned.url);
  const flagged = await other.post(PODS, pod('flagged'));
  expect(flagged.body.spec.tolerations).toEqual([
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
  ]);
  // With Priority disabled nothing resolves a class or sets a priority.
  const unresolved = await other.post(PODS, pod('unresolved', { priorityClassName: 'nope' }));
  expect(unresolved.status).toBe(201);
  expect(unresolved.body.spec.priority).toBeUndefined();
});
