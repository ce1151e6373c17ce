import { eventually } from '../harness/etcd-keys';
import { markPodReady } from '../harness/pod-readiness';
import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/**
 * The replicaset and replicationcontroller controllers through kubectl: adoption and release of
 * pods by selector, which pods go first when scaling down, status, the ReplicaFailure condition
 * under a quota. No nodes: the tests mark pods Ready themselves.
 */

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);
const apply = (manifest: string) => kubectl(kapi.url, ['apply', '-f', '-'], manifest);
const json = async (...args: string[]) => JSON.parse((await k(...args, '-o', 'json')).stdout);

interface PodJson {
  metadata: { name: string; namespace: string; ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
  spec?: { containers?: { name: string }[] };
}
const pods = async (selector: string, namespace = 'default'): Promise<PodJson[]> => (await json('get', 'pods', '-n', namespace, '-l', selector)).items;
const names = async (selector: string): Promise<string[]> => (await pods(selector)).map((p) => p.metadata.name).sort();

beforeAll(async () => {
  kapi = await startServerProcess();
});

afterAll(async () => {
  await kapi.stop();
});

const pod = (name: string, annotations = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {app: orphan}
${annotations ? `  annotations: {${annotations}}\n` : ''}spec: {containers: [{name: app, image: app}]}
`;

test('a replica set adopts orphans, scales down the cheapest and least ready first, releases a pod whose labels change', async () => {
  // Ready a, b (cost 0) and c (cost -100); d not ready though dear.
  expect(
    (
      await apply(
        [
          pod('a', '"controller.kubernetes.io/pod-deletion-cost": "100"'),
          pod('b'),
          pod('c', '"controller.kubernetes.io/pod-deletion-cost": "-100"'),
          pod('d', '"controller.kubernetes.io/pod-deletion-cost": "1000"'),
        ].join('---\n'),
      )
    ).code,
  ).toBe(0);
  for (const p of await pods('app=orphan')) if (p.metadata.name !== 'd') await markPodReady(kapi.url, p);
  const rs = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: keeper}
spec:
  replicas: 4
  selector: {matchLabels: {app: orphan}}
  template:
    metadata: {labels: {app: orphan}}
    spec: {containers: [{name: app, image: app}]}
`;
  expect((await apply(rs)).code).toBe(0);
  const adopted = await eventually('all four adopted', async () => {
    const all = await pods('app=orphan');
    return all.every((p) => p.metadata.ownerReferences?.[0]?.name === 'keeper') ? all : undefined;
  });
  expect(adopted.map((p) => p.metadata.name).sort()).toEqual(['a', 'b', 'c', 'd']);
  expect(adopted[0].metadata.ownerReferences).toEqual([
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'keeper', uid: expect.any(String), controller: true, blockOwnerDeletion: true },
  ]);
  const status = await eventually('status of 4, 3 ready', async () => {
    const s = (await json('get', 'rs', 'keeper')).status;
    return s.readyReplicas === 3 && s.replicas === 4 ? s : undefined;
  });
  expect(status).toEqual({ replicas: 4, fullyLabeledReplicas: 4, readyReplicas: 3, availableReplicas: 3, terminatingReplicas: 0, observedGeneration: 1 });
  expect((await k('get', 'rs', 'keeper')).stdout).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\nkeeper\s+4\s+4\s+3\s+\S+\n$/);

  await k('scale', 'rs/keeper', '--replicas=3');
  await eventually('d gone first (not ready)', async () => ((await names('app=orphan')).join() === 'a,b,c' ? true : undefined));
  await k('scale', 'rs/keeper', '--replicas=1');
  await eventually('c and b gone (cheaper than a)', async () => ((await names('app=orphan')).join() === 'a' ? true : undefined));
  const deleted = (
    (await json('get', 'events', '--field-selector', 'involvedObject.name=keeper')).items as {
      reason: string;
      message: string;
      source: { component: string };
    }[]
  )
    .filter((e) => e.reason === 'SuccessfulDelete')
    .map((e) => [e.message, e.source.component]);
  expect(deleted.sort()).toEqual([
    ['Deleted pod: b', 'replicaset-controller'],
    ['Deleted pod: c', 'replicaset-controller'],
    ['Deleted pod: d', 'replicaset-controller'],
  ]);

  // A pod the selector no longer matches is released, and replaced.
  await k('label', 'pod/a', 'app=gone', '--overwrite');
  await eventually('a released', async () => ((await json('get', 'pod', 'a')).metadata.ownerReferences === undefined ? true : undefined));
  const replacement = await eventually('a replacement pod', async () => {
    const all = await pods('app=orphan');
    return all.length === 1 ? all[0] : undefined;
  });
  expect(replacement.metadata.name).toMatch(/^keeper-[a-z0-9]{5}$/);
  const created = ((await json('get', 'events', '--field-selector', 'involvedObject.name=keeper,reason=SuccessfulCreate')).items as { message: string }[]).map(
    (e) => e.message,
  );
  expect(created).toEqual([`Created pod: ${replacement.metadata.name}`]);
});

test('a replication controller keeps its replicas; scale; minReadySeconds holds availability back', async () => {
  const rc = `apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  replicas: 3
  minReadySeconds: 2
  selector: {app: legacy}
  template:
    metadata: {labels: {app: legacy}}
    spec: {containers: [{name: app, image: app}]}
`;
  expect((await apply(rc)).code).toBe(0);
  const created = await eventually('3 pods', async () => {
    const all = await pods('app=legacy');
    return all.length === 3 ? all : undefined;
  });
  for (const p of created)
    expect(p.metadata.ownerReferences).toEqual([
      expect.objectContaining({ apiVersion: 'v1', kind: 'ReplicationController', name: 'legacy', controller: true }),
    ]);
  for (const p of created) await markPodReady(kapi.url, p);
  const ready = await eventually('3 ready', async () => {
    const s = (await json('get', 'rc', 'legacy')).status;
    return s.readyReplicas === 3 ? s : undefined;
  });
  // Ready for less than minReadySeconds: not yet available; then available without any pod changing.
  expect(ready.availableReplicas ?? 0).toBeLessThan(3);
  // A ReplicationController's status has no terminatingReplicas.
  expect(ready.terminatingReplicas).toBeUndefined();
  await eventually(
    '3 available after minReadySeconds',
    async () => ((await json('get', 'rc', 'legacy')).status.availableReplicas === 3 ? true : undefined),
    15_000,
  );
  expect((await k('scale', 'rc/legacy', '--replicas=1')).stdout.trim()).toBe('replicationcontroller/legacy scaled');
  await eventually('1 pod', async () => ((await pods('app=legacy')).length === 1 ? true : undefined));
  const sources = (
    (await json('get', 'events', '--field-selector', 'involvedObject.name=legacy')).items as { reason: string; source: { component: string } }[]
  ).map((e) => `${e.reason}/${e.source.component}`);
  expect(new Set(sources)).toEqual(new Set(['SuccessfulCreate/replication-controller', 'SuccessfulDelete/replication-controller']));
});

test('a pod held terminating by a finalizer is replaced, and counted in terminatingReplicas of its replica set and deployment', async () => {
  expect((await k('create', 'deployment', 'held', '--image=app', '--replicas=2')).code).toBe(0);
  const terminating = async (): Promise<[number | undefined, number | undefined, number]> => {
    const [rs] = (await json('get', 'rs', '-l', 'app=held')).items;
    const d = await json('get', 'deployment', 'held');
    return [rs?.status?.terminatingReplicas, d.status?.terminatingReplicas, rs?.status?.replicas ?? 0];
  };
  await eventually('none terminating', async () => ((await terminating()).join() === '0,0,2' ? true : undefined));
  const [held] = await pods('app=held');
  await k('patch', 'pod', held.metadata.name, '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}');
  expect((await k('delete', 'pod', held.metadata.name, '--wait=false')).code).toBe(0);
  // The terminating pod is not one of the 2 replicas: a replacement is made at once.
  await eventually('one terminating, replaced', async () => ((await terminating()).join() === '1,1,2' ? true : undefined));
  expect(await pods('app=held')).toHaveLength(3);
  await k('patch', 'pod', held.metadata.name, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
  await eventually('gone, none terminating', async () => ((await terminating()).join() === '0,0,2' ? true : undefined));
});

test('a quota refusing pods gives the ReplicaFailure condition on the replica set and its deployment', async () => {
  await k('create', 'namespace', 'tight');
  await k('create', 'quota', 'pods', '-n', 'tight', '--hard=pods=1');
  await eventually('the quota counted', async () => ((await json('get', 'quota', 'pods', '-n', 'tight')).status?.hard ? true : undefined));
  expect((await k('create', 'deployment', 'big', '-n', 'tight', '--image=app', '--replicas=3')).code).toBe(0);
  const failure = await eventually('ReplicaFailure on the replica set', async () => {
    const [rs] = (await json('get', 'rs', '-n', 'tight')).items;
    return rs?.status?.conditions?.find((c: { type: string }) => c.type === 'ReplicaFailure');
  });
  expect(failure).toMatchObject({ status: 'True', reason: 'FailedCreate' });
  expect(failure.message).toMatch(/^pods "big-\w+-\w+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1$/);
  expect(await pods('app=big', 'tight')).toHaveLength(1);
  const deployment = await eventually('ReplicaFailure on the deployment', async () => {
    const d = await json('get', 'deployment', 'big', '-n', 'tight');
    return d.status.conditions?.find((c: { type: string }) => c.type === 'ReplicaFailure');
  });
  expect(deployment).toMatchObject({ status: 'True', reason: 'FailedCreate', message: failure.message });
  const warnings = ((await json('get', 'events', '-n', 'tight', '--field-selector', 'reason=FailedCreate')).items as { message: string }[]).map(
    (e) => e.message,
  );
  expect(warnings[0]).toBe(`Error creating: ${failure.message}`);
});

test('a replica set with no controller ranks no pod as doubled up on its node: the most recently ready goes first', async () => {
  // r1 and r2 share node n1 and have been ready for an hour; r3, alone on n2, has just become ready.
  const placed = (name: string, node: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: ranked}}
spec: {nodeName: ${node}, containers: [{name: app, image: app}]}
`;
  expect((await apply([placed('r1', 'n1'), placed('r2', 'n1'), placed('r3', 'n2')].join('---\n'))).code).toBe(0);
  const readySince = async (name: string, ms: number) => {
    const at = new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    const condition = (type: string) => ({ type, status: 'True', lastTransitionTime: at });
    const res = await fetch(`${kapi.url}/api/v1/namespaces/default/pods/${name}/status`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ status: { phase: 'Running', conditions: ['Ready', 'ContainersReady'].map(condition) } }),
    });
    expect(res.status).toBe(200);
  };
  await readySince('r1', Date.now() - 3_600_000);
  await readySince('r2', Date.now() - 3_600_000);
  await readySince('r3', Date.now());
  const rs = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: ranked}
spec:
  replicas: 3
  selector: {matchLabels: {app: ranked}}
  template:
    metadata: {labels: {app: ranked}}
    spec: {containers: [{name: app, image: app}]}
`;
  expect((await apply(rs)).code).toBe(0);
  await eventually('3 adopted, ready', async () => {
    const s = (await json('get', 'rs', 'ranked')).status;
    return s.replicas === 3 && s.readyReplicas === 3 ? true : undefined;
  });
  // kube's getReplicaSetsWithSameController finds no siblings for a set without a controller, so
  // every pod's rank is 0 and the ready times decide.
  await k('scale', 'rs/ranked', '--replicas=2');
  // The deleted pod is bound to a node: it stays, terminating, with no kubelet to finish it.
  const left = await eventually('2 pods left', async () => {
    const all = (await json('get', 'pods', '-l', 'app=ranked')).items as { metadata: { name: string; deletionTimestamp?: string } }[];
    const left = all.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name);
    return left.length === 2 ? left.sort() : undefined;
  });
  await k('delete', 'rs', 'ranked', '--wait=false');
  await k('delete', 'pods', '-l', 'app=ranked', '--grace-period=0', '--force', '--wait=false');
  expect(left).toEqual(['r1', 'r2']);
});
