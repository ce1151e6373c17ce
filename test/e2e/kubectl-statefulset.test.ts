import { serverProcessForFile } from '../harness/process';
import { setsKubectl } from '../harness/sets-kubectl';

/** The statefulset controller seen through kubectl: ordered pods, claims from templates, partitioned rolling updates, history and undo, ordered scale down. */

const kapi = serverProcessForFile();
const { k, json, podNames, markReady, until } = setsKubectl(() => kapi.url);

const manifest = (image: string) => `apiVersion: v1
kind: Service
metadata: {name: nginx}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: ${image}
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`;

const exists = async (name: string): Promise<boolean> => (await k('get', 'pod', name)).code === 0;
const revisionOf = async (name: string): Promise<string> => (await json('get', 'pod', name)).metadata.labels['controller-revision-hash'];

test('an OrderedReady set creates web-0, web-1, web-2 one at a time, each after the one before is Ready, with their claims', async () => {
  const applied = await kubectl(manifest('nginx:1.26'));
  expect(applied.code).toBe(0);
  await until('web-0', async () => ((await exists('web-0')) ? true : undefined));
  for (const [ready, next] of [
    ['web-0', 'web-1'],
    ['web-1', 'web-2'],
  ] as const) {
    // The next pod waits for this one: give the controller time to (wrongly) go on.
    await new Promise((r) => setTimeout(r, 400));
    expect(await exists(next)).toBe(false);
    await markReady(ready);
    await until(next, async () => ((await exists(next)) ? true : undefined));
  }
  await markReady('web-2');

  const pod = await json('get', 'pod', 'web-1');
  expect(pod.metadata.labels).toEqual({
    app: 'web',
    'apps.kubernetes.io/pod-index': '1',
    'controller-revision-hash': expect.stringMatching(/^web-[bcdfghjklmnpqrstvwxz2456789]+$/),
    'statefulset.kubernetes.io/pod-name': 'web-1',
  });
  expect(pod.metadata.ownerReferences).toEqual([
    expect.objectContaining({ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', controller: true, blockOwnerDeletion: true }),
  ]);
  expect(pod.spec).toMatchObject({ hostname: 'web-1', subdomain: 'nginx' });
  expect(pod.spec.volumes[0]).toEqual({ name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } });

  const claims = await json('get', 'pvc');
  expect(claims.items.map((c: any) => c.metadata.name).sort()).toEqual(['www-web-0', 'www-web-1', 'www-web-2']);
  expect(claims.items[0].metadata.labels).toEqual({ app: 'web' });
  expect(claims.items[0].metadata.ownerReferences).toBeUndefined();

  const rollout = await k('rollout', 'status', 'sts/web', '--timeout=20s');
  // The partition defaults to 0, so kubectl reports a partitioned roll out, as against kube.
  expect(rollout.stdout).toBe('partitioned roll out complete: 3 new pods have been updated...\n');
  const sts = await json('get', 'sts', 'web');
  expect(sts.status).toMatchObject({
    replicas: 3,
    readyReplicas: 3,
    currentReplicas: 3,
    updatedReplicas: 3,
    availableReplicas: 3,
    observedGeneration: 1,
    collisionCount: 0,
  });
  expect(sts.status.currentRevision).toBe(sts.status.updateRevision);
  expect(sts.status.currentRevision).toBe(pod.metadata.labels['controller-revision-hash']);

  const events = (
    await k('get', 'events', '--field-selector', 'involvedObject.kind=StatefulSet', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}')
  ).stdout;
  expect(events).toContain('SuccessfulCreate: create Pod web-0 in StatefulSet web successful');
  expect(events).toContain('SuccessfulCreate: create Claim www-web-2 Pod web-2 in StatefulSet web success');
});

test('a partitioned rolling update replaces only the pods at or above the partition; history and undo read the revisions', async () => {
  const before = await revisionOf('web-0');
  await k('patch', 'sts', 'web', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}');
  expect((await k('set', 'image', 'sts/web', 'nginx=nginx:1.27')).code).toBe(0);
  const updated = await until('web-2 at the new revision', async () => {
    const sts = await json('get', 'sts', 'web');
    if (sts.status.updateRevision === before || !(await exists('web-2'))) return undefined;
    return (await revisionOf('web-2')) === sts.status.updateRevision ? (sts.status.updateRevision as string) : undefined;
  });
  expect((await json('get', 'pod', 'web-2')).spec.containers[0].image).toBe('nginx:1.27');
  await markReady('web-2');
  expect(await revisionOf('web-0')).toBe(before);
  expect(await revisionOf('web-1')).toBe(before);
  const rollout = await k('rollout', 'status', 'sts/web', '--timeout=20s');
  expect(rollout.stdout).toContain('partitioned roll out complete: 1 new pods have been updated...');
  const sts = await json('get', 'sts', 'web');
  expect(sts.status).toMatchObject({ currentRevision: before, updateRevision: updated, currentReplicas: 2, updatedReplicas: 1 });

  const revisions = await json('get', 'controllerrevisions', '-l', 'app=web');
  expect(revisions.items.map((r: any) => [r.metadata.name, r.revision]).sort()).toEqual([
    [before, 1],
    [updated, 2],
  ]);
  expect(revisions.items[0].metadata.labels['controller.kubernetes.io/hash']).toBe(revisions.items[0].metadata.name.slice('web-'.length));
  const history = (await k('rollout', 'history', 'sts/web')).stdout;
  expect(history).toMatch(/^statefulset\.apps\/web\s*\nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);
  expect((await k('rollout', 'history', 'sts/web', '--revision=1')).stdout).toContain('nginx:1.26');

  // kubectl 1.32 writes `creationTimestamp: null` into the template it compares; kube 1.34's revisions (and ours) do not, so it patches, changing nothing.
  const generation = (await json('get', 'sts', 'web')).metadata.generation;
  expect((await k('rollout', 'undo', 'sts/web', '--to-revision=2')).stdout.trim()).toBe('statefulset.apps/web rolled back');
  expect((await json('get', 'sts', 'web')).metadata.generation).toBe(generation);
  expect((await k('rollout', 'undo', 'sts/web')).stdout.trim()).toBe('statefulset.apps/web rolled back');
  expect((await json('get', 'sts', 'web')).spec.template.spec.containers[0].image).toBe('nginx:1.26');
  // The first revision is the update revision again, renumbered 3; web-2 goes back to it.
  await until('revision 1 renumbered 3', async () => {
    const r = await json('get', 'controllerrevision', before);
    return r.revision === 3 ? true : undefined;
  });
  await until('web-2 back at the first revision', async () => ((await exists('web-2')) && (await revisionOf('web-2')) === before ? true : undefined));
  await markReady('web-2');
});

test('scaling down removes the highest ordinal first, and each only once the others are Ready', async () => {
  await until('all three ready', async () => ((await json('get', 'sts', 'web')).status.readyReplicas === 3 ? true : undefined));
  expect((await k('scale', 'sts', 'web', '--replicas=1')).code).toBe(0);
  const seen: string[][] = [];
  await until('one pod left', async () => {
    const names = await podNames('app=web');
    if (seen.at(-1)?.join() !== names.join()) seen.push(names);
    return names.length === 1 ? true : undefined;
  });
  expect(seen.at(-1)).toEqual(['web-0']);
  // web-1 never goes before web-2.
  expect(seen.some((names) => names.includes('web-2') && !names.includes('web-1'))).toBe(false);
  expect((await json('get', 'pvc')).items).toHaveLength(3);
  const events = (await k('get', 'events', '--field-selector', 'involvedObject.kind=StatefulSet', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}'))
    .stdout;
  expect(events).toContain('delete Pod web-2 in StatefulSet web successful');
  expect(events).toContain('delete Pod web-1 in StatefulSet web successful');
  await until('status of one replica', async () => {
    const sts = await json('get', 'sts', 'web');
    return sts.status.replicas === 1 && sts.status.readyReplicas === 1 ? true : undefined;
  });
});

test('a Parallel set creates all its pods at once', async () => {
  const par = manifest('nginx:1.27')
    .split('---\n')[1]!
    .replace('name: web}', 'name: par}')
    .replace('serviceName: nginx', 'serviceName: nginx\n  podManagementPolicy: Parallel')
    .replaceAll('{app: web}', '{app: par}');
  expect((await kubectl(par)).code).toBe(0);
  await until('par-0..2', async () => ((await podNames('app=par')).length === 3 ? true : undefined));
  expect(await podNames('app=par')).toEqual(['par-0', 'par-1', 'par-2']);
});

test('maxUnavailable 2 (MaxUnavailableStatefulSet, on since 1.35): a rolling update replaces two pods at once, the third once one is back', async () => {
  for (const name of await podNames('app=par')) await markReady(name);
  await until('par ready', async () => ((await json('get', 'sts', 'par')).status.availableReplicas === 3 ? true : undefined));
  const before = await revisionOf('par-0');
  expect((await k('patch', 'sts', 'par', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":2}}}}')).code).toBe(0);
  expect((await k('set', 'image', 'sts/par', 'nginx=nginx:1.28')).code).toBe(0);
  const updated = async (name: string): Promise<boolean> => (await exists(name)) && (await revisionOf(name)) !== before;
  await until('par-1 and par-2 replaced together', async () => ((await updated('par-1')) && (await updated('par-2')) ? true : undefined));
  // Two are unavailable: par-0 waits.
  await new Promise((r) => setTimeout(r, 400));
  expect(await revisionOf('par-0')).toBe(before);
  await markReady('par-2');
  await until('par-0 replaced', async () => ((await updated('par-0')) ? true : undefined));
});

test('a pod name taken by a pod the set does not select fails the pass: it is not counted, and a Parallel set does not roll on (CreateStatefulPod)', async () => {
  const blocker = 'apiVersion: v1\nkind: Pod\nmetadata: {name: blk-2, labels: {app: other}}\nspec:\n  containers: [{name: c, image: nginx}]\n';
  expect((await kubectl(blocker)).code).toBe(0);
  const blk = manifest('nginx:1.27')
    .split('---\n')[1]!
    .replace('name: web}', 'name: blk}')
    .replace('serviceName: nginx', 'serviceName: nginx\n  podManagementPolicy: Parallel')
    .replaceAll('{app: web}', '{app: blk}');
  expect((await kubectl(blk)).code).toBe(0);
  await until('blk-0 and blk-1', async () => ((await podNames('app=blk')).length === 2 ? true : undefined));
  for (const name of ['blk-0', 'blk-1']) await markReady(name);
  const before = await revisionOf('blk-0');
  await until('two ready', async () => ((await json('get', 'sts', 'blk')).status.readyReplicas === 2 ? true : undefined));
  expect((await json('get', 'sts', 'blk')).status).toMatchObject({ replicas: 2, currentReplicas: 2, updatedReplicas: 2, currentRevision: before });

  expect((await k('set', 'image', 'sts/blk', 'nginx=nginx:1.28')).code).toBe(0);
  const sts = await until('the update revision', async () => {
    const s = await json('get', 'sts', 'blk');
    return s.status.observedGeneration === 2 ? s : undefined;
  });
  expect(sts.status).toMatchObject({ replicas: 2, readyReplicas: 2, currentReplicas: 2, currentRevision: before });
  // updatedReplicas is omitempty: 0 is left out.
  expect(sts.status.updatedReplicas).toBeUndefined();
  // Every pass stops at blk-2, before the rolling update.
  await new Promise((r) => setTimeout(r, 1500));
  expect(await revisionOf('blk-1')).toBe(before);
  expect((await json('get', 'pod', 'blk-2')).metadata.labels).toEqual({ app: 'other' });
});

test('a rolling update is complete only once spec.replicas pods are updated and ready: a set short of a pod keeps its current revision (completeRollingUpdate)', async () => {
  const vap = manifest('nginx:1.27')
    .split('---\n')[1]!
    .replace('name: web}', 'name: vap}')
    .replace('replicas: 3', 'replicas: 2')
    .replaceAll('{app: web}', '{app: vap}');
  expect((await kubectl(vap)).code).toBe(0);
  await until('vap-0', async () => ((await exists('vap-0')) ? true : undefined));
  await markReady('vap-0');
  await until('vap-1', async () => ((await exists('vap-1')) ? true : undefined));
  await markReady('vap-1');
  const before = await revisionOf('vap-0');
  // Once vap-0 is gone, a policy refuses its replacement.
  const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-vap-0}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "object.metadata.name != 'vap-0'", message: no vap-0}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-vap-0}
spec: {policyName: no-vap-0, validationActions: [Deny]}
`;
  expect((await kubectl(policy)).code).toBe(0);
  await until('the policy in force', async () => ((await k('run', 'vap-0', '--image=nginx')).stderr.includes('denied request') ? true : undefined));

  expect((await k('set', 'image', 'sts/vap', 'nginx=nginx:1.28')).code).toBe(0);
  await until('vap-1 replaced', async () => ((await exists('vap-1')) && (await revisionOf('vap-1')) !== before ? true : undefined));
  await markReady('vap-1');
  const sts = await until('vap-0 gone, its replacement refused', async () => {
    const s = await json('get', 'sts', 'vap');
    return s.status.replicas === 1 && s.status.readyReplicas === 1 && s.status.updatedReplicas === 1 ? s : undefined;
  });
  // Every pod the set has is updated and ready, but it has 1 of 2: the update revision is not yet the current one.
  expect(sts.status.currentRevision).toBe(before);
  expect(sts.status.updateRevision).not.toBe(before);
  expect(sts.status.currentReplicas).toBeUndefined();
});

function kubectl(input: string) {
  return import('../harness/process').then(({ kubectl: run }) => run(kapi.url, ['apply', '-f', '-'], input));
}
