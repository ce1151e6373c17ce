import { eventually } from '../harness/etcd-keys';
import { markPodReady, readyPodsContinuously, type PodReadiness } from '../harness/pod-readiness';
import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/**
 * The deployment controller with the replicaset controller, driven by kubectl 1.32 as kubectl's
 * own test/cmd apps.sh drives them: create, rollout status|history|undo|pause|resume, set image,
 * scale, wait, delete. No nodes run here: a loop marks pods Ready as a kubelet would, except pods
 * labelled manual=true, which the tests make ready themselves.
 */

let kapi: ServerProcess;
let readiness: PodReadiness;
const k = (...args: string[]) => kubectl(kapi.url, args);
const json = async (...args: string[]) => JSON.parse((await k(...args, '-o', 'json')).stdout);

interface Rs {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string>; ownerReferences?: { kind: string; name: string }[] };
  spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
  status?: { replicas?: number; availableReplicas?: number };
}

const replicaSets = async (selector: string): Promise<Rs[]> => (await json('get', 'rs', '-l', selector)).items;
const events = async (name: string): Promise<string[]> =>
  ((await json('get', 'events', '--field-selector', `involvedObject.name=${name}`)).items as { reason: string; message: string }[]).map(
    (e) => `${e.reason}: ${e.message}`,
  );

/**
 * A Deployment `name` of two app:1 pods labelled `<label>: "true"`, rolling one surge pod at a time,
 * applied and rolled out: its first replica set.
 */
async function rolledOut(name: string, label: string): Promise<Rs> {
  const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: ${name}, ${label}: "true"}}
    spec: {containers: [{name: app, image: "app:1"}]}
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).code).toBe(0);
  expect((await k('rollout', 'status', `deployment/${name}`, '--timeout=30s')).code).toBe(0);
  return (await replicaSets(`app=${name}`))[0];
}

beforeAll(async () => {
  kapi = await startServerProcess();
  readiness = readyPodsContinuously(kapi.url, (pod) => (pod as { metadata: { labels?: Record<string, string> } }).metadata.labels?.manual !== 'true');
});

afterAll(async () => {
  await readiness.stop();
  await kapi.stop();
});

test('create deployment, rollout status, set image, history, undo --to-revision=1, wait', async () => {
  expect((await k('create', 'deployment', 'web', '--image=nginx', '--replicas=3')).stdout.trim()).toBe('deployment.apps/web created');
  const status = await k('rollout', 'status', 'deployment/web', '--timeout=30s');
  expect(status.stdout).toContain('deployment "web" successfully rolled out');
  expect((await k('wait', '--for=condition=Available', 'deployment/web', '--timeout=30s')).stdout.trim()).toBe('deployment.apps/web condition met');

  const [first] = await replicaSets('app=web');
  const hash = first.metadata.labels!['pod-template-hash'];
  expect(first.metadata.name).toBe(`web-${hash}`);
  expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  expect(first.metadata.annotations).toEqual({
    'deployment.kubernetes.io/revision': '1',
    'deployment.kubernetes.io/desired-replicas': '3',
    'deployment.kubernetes.io/max-replicas': '4',
  });
  expect(first.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'web', controller: true, blockOwnerDeletion: true })]);
  const pods = (await json('get', 'pods', '-l', `pod-template-hash=${hash}`)).items;
  expect(pods).toHaveLength(3);
  for (const pod of pods) expect(pod.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ReplicaSet', name: first.metadata.name })]);

  const web = await json('get', 'deployment', 'web');
  expect(web.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
  expect(web.metadata.generation).toBe(1);
  expect(web.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
  expect(web.status.unavailableReplicas).toBeUndefined();
  expect(web.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message])).toEqual([
    ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
    ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`],
  ]);
  expect(await events('web')).toEqual([`ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 3`]);

  // Revision 2, with a change cause kubectl rollout history shows.
  expect((await k('set', 'image', 'deployment/web', 'nginx=nginx:1.27')).stdout.trim()).toBe('deployment.apps/web image updated');
  await k('annotate', 'deployment/web', 'kubernetes.io/change-cause=image 1.27');
  expect((await k('rollout', 'status', 'deployment/web', '--timeout=30s')).stdout).toContain('successfully rolled out');
  const second = await eventually('a second replica set', async () => {
    const sets = await replicaSets('app=web');
    return sets.length === 2 ? sets.find((rs) => rs.metadata.name !== first.metadata.name) : undefined;
  });
  expect(second!.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '2', 'kubernetes.io/change-cause': 'image 1.27' });
  await eventually('the first replica set scaled to 0', async () => ((await json('get', 'rs', first.metadata.name)).spec.replicas === 0 ? true : undefined));
  const history = (await k('rollout', 'history', 'deployment/web')).stdout;
  expect(history).toMatch(/^deployment\.apps\/web \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+image 1\.27\n/);
  expect((await k('rollout', 'history', 'deployment/web', '--revision=1')).stdout).toContain('Image:\tnginx\n');

  // kubectl's test/cmd: a revision that does not exist, then revision 1.
  const missing = await k('rollout', 'undo', 'deployment/web', '--to-revision=1000000');
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain('unable to find specified revision 1000000 in history');
  expect((await k('rollout', 'undo', 'deploy/web', '--to-revision=1')).stdout.trim()).toBe('deployment.apps/web rolled back');
  expect((await k('rollout', 'status', 'deployment/web', '--timeout=30s')).stdout).toContain('successfully rolled out');
  const undone = await json('get', 'deployment', 'web');
  expect(undone.spec.template.spec.containers[0].image).toBe('nginx');
  const restored = await eventually('the first replica set back as revision 3', async () => {
    const rs = await json('get', 'rs', first.metadata.name);
    return rs.metadata.annotations['deployment.kubernetes.io/revision'] === '3' && rs.status.availableReplicas === 3 ? rs : undefined;
  });
  expect(restored.metadata.annotations['deployment.kubernetes.io/revision-history']).toBe('1');
  expect(restored.spec.replicas).toBe(3);
  await eventually('revision 3 on the deployment', async () =>
    (await json('get', 'deployment', 'web')).metadata.annotations['deployment.kubernetes.io/revision'] === '3' ? true : undefined,
  );
  expect((await k('rollout', 'history', 'deployment/web')).stdout).toMatch(/\n2\s+image 1\.27\n3\s+<none>\n/);

  // rollout restart changes the template (an annotation): a new replica set, revision 4.
  expect((await k('rollout', 'restart', 'deployment/web')).stdout.trim()).toBe('deployment.apps/web restarted');
  expect((await k('rollout', 'status', 'deployment/web', '--timeout=30s')).stdout).toContain('successfully rolled out');
  const restarted = await eventually('revision 4', async () =>
    (await replicaSets('app=web')).find((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision'] === '4'),
  );
  expect(Object.keys((await json('get', 'rs', restarted.metadata.name)).spec.template.metadata.annotations)).toEqual(['kubectl.kubernetes.io/restartedAt']);
});

test('a rollout that makes no progress within progressDeadlineSeconds is reported', async () => {
  const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck}
spec:
  replicas: 1
  progressDeadlineSeconds: 2
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck, manual: "true"}}
    spec: {containers: [{name: app, image: app}]}
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).code).toBe(0);
  const status = await k('rollout', 'status', 'deployment/stuck', '--timeout=30s');
  expect(status.code).not.toBe(0);
  expect(status.stderr).toContain('error: deployment "stuck" exceeded its progress deadline');
  const d = await json('get', 'deployment', 'stuck');
  const [rs] = await replicaSets('app=stuck');
  expect(d.status.conditions).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        type: 'Progressing',
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
        message: `ReplicaSet "${rs.metadata.name}" has timed out progressing.`,
      }),
    ]),
  );
});

test('rolling update within maxSurge and maxUnavailable, proportional scaling mid-rollout, pause and resume', async () => {
  const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: slow}
spec:
  replicas: 4
  selector: {matchLabels: {app: slow}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}
  template:
    metadata: {labels: {app: slow, manual: "true"}}
    spec: {containers: [{name: app, image: "app:1"}]}
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).code).toBe(0);
  const readyAll = async () => {
    const pods = (await json('get', 'pods', '-l', 'app=slow')).items;
    await Promise.all(pods.map((pod: never) => markPodReady(kapi.url, pod)));
  };
  await eventually('4 pods', async () => ((await json('get', 'pods', '-l', 'app=slow')).items.length === 4 ? true : undefined));
  const before = await eventually('4 unavailable replicas', async () => {
    const d = await json('get', 'deployment', 'slow');
    return d.status.unavailableReplicas === 4 ? d : undefined;
  });
  expect(before.status.conditions).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        type: 'Available',
        status: 'False',
        reason: 'MinimumReplicasUnavailable',
        message: 'Deployment does not have minimum availability.',
      }),
      expect.objectContaining({ type: 'Progressing', status: 'True' }),
    ]),
  );
  await readyAll();
  expect((await k('rollout', 'status', 'deployment/slow', '--timeout=30s')).code).toBe(0);
  const [v1] = await replicaSets('app=slow');

  // New pods never become ready: the rollout stops where maxSurge and maxUnavailable hold it.
  await k('set', 'image', 'deployment/slow', 'app=app:2');
  const sizes = async () =>
    Object.fromEntries((await replicaSets('app=slow')).map((rs) => [rs.metadata.name === v1.metadata.name ? 'old' : 'new', rs.spec.replicas]));
  await eventually('old 3, new 2', async () => {
    const s = await sizes();
    return s.old === 3 && s.new === 2 ? s : undefined;
  });
  const v2 = (await replicaSets('app=slow')).find((rs) => rs.metadata.name !== v1.metadata.name)!;
  const mid = await eventually('the status of the stalled rollout', async () => {
    const d = await json('get', 'deployment', 'slow');
    return d.status.replicas === 5 && d.status.updatedReplicas === 2 ? d : undefined;
  });
  expect(mid.status).toMatchObject({ availableReplicas: 3, unavailableReplicas: 2, readyReplicas: 3 });
  expect(mid.status.conditions).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ type: 'Available', status: 'True' }),
      expect.objectContaining({
        type: 'Progressing',
        status: 'True',
        reason: 'ReplicaSetUpdated',
        message: `ReplicaSet "${v2.metadata.name}" is progressing.`,
      }),
    ]),
  );
  expect(await events('slow')).toEqual(
    expect.arrayContaining([
      `ScalingReplicaSet: Scaled up replica set ${v2.metadata.name} from 0 to 1`,
      `ScalingReplicaSet: Scaled down replica set ${v1.metadata.name} from 4 to 3`,
      `ScalingReplicaSet: Scaled up replica set ${v2.metadata.name} from 1 to 2`,
    ]),
  );

  // Scaling 4 -> 8 mid-rollout: 9 allowed (8 + maxSurge), the 4 extra shared 3:2 in proportion.
  expect((await k('scale', 'deployment/slow', '--replicas=8')).stdout.trim()).toBe('deployment.apps/slow scaled');
  await eventually('old 5, new 4', async () => {
    const s = await sizes();
    return s.old === 5 && s.new === 4 ? s : undefined;
  });
  const scaled = await replicaSets('app=slow');
  for (const rs of scaled)
    expect(rs.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/desired-replicas': '8', 'deployment.kubernetes.io/max-replicas': '9' });

  // Paused: template changes make no new replica set; resumed, the rollout finishes.
  expect((await k('rollout', 'pause', 'deployment/slow')).stdout.trim()).toBe('deployment.apps/slow paused');
  const paused = await eventually('the paused condition', async () => {
    const d = await json('get', 'deployment', 'slow');
    return d.status.conditions.find((c: Record<string, string>) => c.type === 'Progressing' && c.reason === 'DeploymentPaused');
  });
  expect(paused).toMatchObject({ status: 'Unknown', message: 'Deployment is paused' });
  await k('set', 'image', 'deployment/slow', 'app=app:3');
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await replicaSets('app=slow')).toHaveLength(2);
  const resumeFailsWhilePaused = await k('rollout', 'undo', 'deployment/slow');
  expect(resumeFailsWhilePaused.stderr).toContain("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again");
  expect((await k('rollout', 'resume', 'deployment/slow')).stdout.trim()).toBe('deployment.apps/slow resumed');
  await eventually('a third replica set', async () => ((await replicaSets('app=slow')).length === 3 ? true : undefined));
  const stop = readyPodsContinuously(kapi.url, (pod) => (pod as { metadata: { name: string } }).metadata.name.startsWith('slow-'));
  try {
    expect((await k('rollout', 'status', 'deployment/slow', '--timeout=60s')).stdout).toContain('successfully rolled out');
  } finally {
    await stop.stop();
  }
  const done = await json('get', 'deployment', 'slow');
  expect(done.status).toMatchObject({ replicas: 8, updatedReplicas: 8, availableReplicas: 8 });
  expect(done.metadata.annotations['deployment.kubernetes.io/revision']).toBe('3');
});

test('Recreate scales the old replica set to 0 before the new one; revisionHistoryLimit; delete removes replica sets and pods', async () => {
  const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: re}
spec:
  replicas: 2
  revisionHistoryLimit: 1
  selector: {matchLabels: {app: re}}
  strategy: {type: Recreate}
  template:
    metadata: {labels: {app: re}}
    spec: {containers: [{name: app, image: "app:1"}]}
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).code).toBe(0);
  expect((await k('rollout', 'status', 'deployment/re', '--timeout=30s')).code).toBe(0);
  const [v1] = await replicaSets('app=re');
  await k('set', 'image', 'deployment/re', 'app=app:2');
  expect((await k('rollout', 'status', 'deployment/re', '--timeout=30s')).code).toBe(0);
  await k('set', 'image', 'deployment/re', 'app=app:3');
  expect((await k('rollout', 'status', 'deployment/re', '--timeout=30s')).code).toBe(0);
  const log = await events('re');
  const downV1 = log.indexOf(`ScalingReplicaSet: Scaled down replica set ${v1.metadata.name} from 2 to 0`);
  const upV2 = log.findIndex((e) => /^ScalingReplicaSet: Scaled up replica set re-\w+ from 0 to 2$/.test(e) && !e.includes(v1.metadata.name));
  expect(downV1).toBeGreaterThanOrEqual(0);
  expect(upV2).toBeGreaterThan(downV1);
  // revisionHistoryLimit 1: of the two old replica sets, the oldest (revision 1) is deleted.
  const left = await eventually('one old replica set kept', async () => {
    const sets = await replicaSets('app=re');
    return sets.length === 2 ? sets : undefined;
  });
  expect(left.map((rs) => rs.metadata.annotations!['deployment.kubernetes.io/revision']).sort()).toEqual(['2', '3']);

  expect((await k('delete', 'deployment', 're')).stdout.trim()).toBe('deployment.apps "re" deleted');
  await eventually('replica sets and pods gone', async () => {
    const left = (await json('get', 'rs,pods', '-l', 'app=re')).items;
    return left.length === 0 ? true : undefined;
  });
});

test('an old replica set that cannot lose its pods is never scaled back up: more available than asked is no unhealthy replica', async () => {
  // Pods labelled pinned=true cannot be deleted, so the old replica set keeps more available pods
  // than its spec asks for (as it does until its controller catches up after a scale-down).
  const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: pinned-pods}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["pods"]}]
  validations: [{expression: "oldObject.metadata.?labels[?'pinned'].orValue('') != 'true'", message: "pinned"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: pinned-pods}
spec: {policyName: pinned-pods, validationActions: [Deny]}
`;
  const v1 = await rolledOut('pinned', 'pinned');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], policy)).code).toBe(0);
  try {
    // Wait until the policy is in force: a pinned pod cannot be deleted.
    const probe = (await json('get', 'pods', '-l', 'app=pinned')).items[0].metadata.name;
    await eventually('the policy in force', async () => ((await k('delete', 'pod', probe, '--dry-run=server')).code !== 0 ? true : undefined));

    await k('set', 'image', 'deployment/pinned', 'app=app:2');
    const v2 = await eventually('the new replica set at 2 available', async () => {
      const rs = (await replicaSets('app=pinned')).find((s) => s.metadata.name !== v1.metadata.name);
      return rs?.spec.replicas === 2 && rs.status?.availableReplicas === 2 ? rs : undefined;
    });
    // kube's cleanupUnhealthyReplicas refuses a scale "down" that would grow the old replica set.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const old = await json('get', 'rs', v1.metadata.name);
    expect(old.spec.replicas).toBe(1);
    expect(old.status).toMatchObject({ replicas: 2, availableReplicas: 2 });
    // The refused deletion, as kube's RealPodControl.DeletePod wraps it, on the replica set and its deployment.
    const failure = old.status.conditions.find((c: { type: string }) => c.type === 'ReplicaFailure');
    expect(failure).toMatchObject({ status: 'True', reason: 'FailedDelete' });
    expect(failure.message).toMatch(/^unable to delete pods: pods "pinned-\w+-\w+" is forbidden: .*pinned$/);
    const conditions = (await json('get', 'deployment', 'pinned')).status.conditions;
    expect(conditions.find((c: { type: string }) => c.type === 'ReplicaFailure')).toMatchObject({ reason: 'FailedDelete', message: failure.message });
    expect((await events('pinned')).sort()).toEqual(
      [
        `ScalingReplicaSet: Scaled up replica set ${v1.metadata.name} from 0 to 2`,
        `ScalingReplicaSet: Scaled up replica set ${v2!.metadata.name} from 0 to 1`,
        `ScalingReplicaSet: Scaled down replica set ${v1.metadata.name} from 2 to 1`,
        `ScalingReplicaSet: Scaled up replica set ${v2!.metadata.name} from 1 to 2`,
      ].sort(),
    );
  } finally {
    await k('delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', 'pinned-pods');
    await k('delete', 'deployment', 'pinned');
  }
});

test('a paused Deployment that adopts replica sets without its annotations, before it ever counted replicas, shrinks the largest', async () => {
  const rs = (name: string, image: string, replicas: number) => `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: ${name}, labels: {app: adopted}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: adopted}}
  template:
    metadata: {labels: {app: adopted, manual: "true"}}
    spec: {containers: [{name: app, image: "${image}"}]}
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], [rs('adopted-a', 'app:a', 4), rs('adopted-b', 'app:b', 2)].join('---\n'))).code).toBe(0);
  await eventually('both replica sets synced', async () => {
    const sets = (await json('get', 'rs', '-l', 'app=adopted')).items as { status?: { observedGeneration?: number } }[];
    return sets.length === 2 && sets.every((s) => s.status?.observedGeneration === 1) ? true : undefined;
  });
  const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: adopted}
spec:
  paused: true
  replicas: 2
  selector: {matchLabels: {app: adopted}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
  template:
    metadata: {labels: {app: adopted, manual: "true"}}
    spec: {containers: [{name: app, image: "app:c"}]}
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).code).toBe(0);
  // No max-replicas annotation and a status of 0 replicas: kube's getReplicaSetFraction gives no
  // share to either, and the whole change (2 - 6) goes to the largest, adopted-a.
  const sizes = await eventually('both adopted and resized', async () => {
    const sets = (await json('get', 'rs', '-l', 'app=adopted')).items as Rs[];
    const resized = sets.every(
      (s) => s.metadata.ownerReferences?.[0]?.name === 'adopted' && s.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'] === '2',
    );
    return resized ? Object.fromEntries(sets.map((s) => [s.metadata.name, s.spec.replicas])) : undefined;
  });
  expect(sizes).toEqual({ 'adopted-a': 0, 'adopted-b': 2 });
  await k('delete', 'deployment', 'adopted');
});

test('a name taken by a replica set of another template is a hash collision: collisionCount 1 and a replica set of another name', async () => {
  expect((await k('create', 'deployment', 'coll', '--image=app:1', '--replicas=1')).code).toBe(0);
  const [taken] = await eventually('the first replica set', async () => {
    const sets = await replicaSets('app=coll');
    return sets.length === 1 ? sets : undefined;
  });
  // Orphan it, move it out of the selector and change its template: its name stays taken.
  expect((await k('delete', 'deployment', 'coll', '--cascade=orphan')).code).toBe(0);
  await eventually('orphaned', async () => ((await json('get', 'rs', taken.metadata.name)).metadata.ownerReferences ? undefined : true));
  await k('label', 'rs', taken.metadata.name, 'app=taken', '--overwrite');
  await k('set', 'image', 'rs', taken.metadata.name, 'app=app:other');
  expect((await k('create', 'deployment', 'coll', '--image=app:1', '--replicas=1')).code).toBe(0);
  const d = await eventually('collisionCount 1', async () => {
    const d = await json('get', 'deployment', 'coll');
    return d.status?.collisionCount === 1 ? d : undefined;
  });
  expect(d.status.collisionCount).toBe(1);
  const [fresh] = await eventually('a replica set of another name', async () => {
    const sets = await replicaSets('app=coll');
    return sets.length === 1 ? sets : undefined;
  });
  expect(fresh.metadata.name).not.toBe(taken.metadata.name);
  expect(fresh.metadata.name).toBe(`coll-${fresh.metadata.labels!['pod-template-hash']}`);
  expect((await k('rollout', 'status', 'deployment/coll', '--timeout=30s')).code).toBe(0);
  await k('delete', 'deployment', 'coll');
  await k('delete', 'rs', taken.metadata.name);
});

test('a replica set orphaned by its deployment is adopted at once by another deployment whose selector matches it', async () => {
  const deployment = (name: string, selector: string, tier: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {${selector}}}
  template:
    metadata: {labels: {app: shared, tier: ${tier}}}
    spec: {containers: [{name: app, image: "app:${tier}"}]}
`;
  const manifests = [deployment('share-a', 'app: shared, tier: a', 'a'), deployment('share-b', 'app: shared', 'b')];
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifests.join('---\n'))).code).toBe(0);
  expect((await k('rollout', 'status', 'deployment/share-a', '--timeout=30s')).code).toBe(0);
  expect((await k('rollout', 'status', 'deployment/share-b', '--timeout=30s')).code).toBe(0);
  const [a] = await replicaSets('tier=a');
  expect(a.metadata.ownerReferences).toEqual([expect.objectContaining({ name: 'share-a' })]);
  // share-b is at rest: only the orphaning of share-a's replica set can make it look again.
  expect((await k('delete', 'deployment', 'share-a', '--cascade=orphan')).code).toBe(0);
  // kube's updateReplicaSet: a controller reference gone is a change that makes matching deployments look.
  const adopted = await eventually(
    'adopted by share-b and scaled to 0',
    async () => {
      const rs = await json('get', 'rs', a.metadata.name);
      return rs.metadata.ownerReferences?.[0]?.name === 'share-b' && rs.spec.replicas === 0 ? rs : undefined;
    },
    10_000,
  );
  expect(adopted.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'share-b', controller: true })]);
  await k('delete', 'deployment', 'share-b');
});

test('an old replica set that cannot be scaled down leaves the rollout stuck, with its status still counted', async () => {
  // Updates that shrink a frozen=true replica set of image app:1 are refused.
  const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: frozen-sets}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["replicasets"]}]
  matchConditions: [{name: frozen, expression: "oldObject.metadata.?labels[?'frozen'].orValue('') == 'true'"}]
  validations:
  - expression: "oldObject.spec.template.spec.containers[0].image != 'app:1' || object.spec.replicas >= oldObject.spec.replicas"
    message: frozen
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: frozen-sets}
spec: {policyName: frozen-sets, validationActions: [Deny]}
`;
  const v1 = await rolledOut('frozen', 'frozen');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], policy)).code).toBe(0);
  try {
    await eventually('the policy in force', async () =>
      (await k('patch', 'rs', v1.metadata.name, '-p', '{"spec":{"replicas":1}}', '--dry-run=server')).code !== 0 ? true : undefined,
    );
    await k('set', 'image', 'deployment/frozen', 'app=app:2');
    // kube's reconcileOldReplicaSets swallows the refused scale-down: the status is synced all the same.
    const d = await eventually('the surge pod counted as updated and available', async () => {
      const d = await json('get', 'deployment', 'frozen');
      return d.status.updatedReplicas === 1 && d.status.availableReplicas === 3 ? d : undefined;
    });
    expect(d.status).toMatchObject({ replicas: 3, readyReplicas: 3, observedGeneration: 2 });
    expect((await json('get', 'rs', v1.metadata.name)).spec.replicas).toBe(2);
  } finally {
    await k('delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', 'frozen-sets');
    await k('delete', 'deployment', 'frozen');
  }
});

test('a Deployment adopting a replica set of its own template takes it as its new one: revision 1, no replica set created', async () => {
  const rs = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: found-old, labels: {app: found}}
spec:
  replicas: 2
  selector: {matchLabels: {app: found}}
  template:
    metadata: {labels: {app: found}}
    spec: {containers: [{name: app, image: "app:1"}]}
`;
  expect((await kubectl(kapi.url, ['create', '-f', '-'], rs)).code).toBe(0);
  await eventually('the replica set synced', async () => ((await json('get', 'rs', 'found-old')).status?.observedGeneration === 1 ? true : undefined));
  const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: found}
spec:
  replicas: 2
  selector: {matchLabels: {app: found}}
  template:
    metadata: {labels: {app: found}}
    spec: {containers: [{name: app, image: "app:1"}]}
`;
  expect((await kubectl(kapi.url, ['create', '-f', '-'], manifest)).code).toBe(0);
  expect((await k('rollout', 'status', 'deployment/found', '--timeout=30s')).code).toBe(0);
  const sets = await replicaSets('app=found');
  expect(sets.map((s) => s.metadata.name)).toEqual(['found-old']);
  // getNewReplicaSet gives it the revision; never scaled, it gets no replica annotations.
  expect(sets[0].metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
  expect(sets[0].metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'found', controller: true })]);
  const d = await json('get', 'deployment', 'found');
  expect(d.metadata.annotations['deployment.kubernetes.io/revision']).toBe('1');
  expect(d.status.conditions.find((c: { type: string }) => c.type === 'Progressing')).toMatchObject({
    status: 'True',
    reason: 'NewReplicaSetAvailable',
    message: 'ReplicaSet "found-old" has successfully progressed.',
  });
  expect(await events('found')).toEqual([]);
  await k('delete', 'deployment', 'found');
});

test('a revision annotation that is no integer counts for nothing when the next revision is numbered', async () => {
  expect((await k('create', 'deployment', 'revs', '--image=app:1', '--replicas=1')).code).toBe(0);
  expect((await k('rollout', 'status', 'deployment/revs', '--timeout=30s')).code).toBe(0);
  const [first] = await replicaSets('app=revs');
  // strconv.ParseInt refuses "1e1": kube's MaxRevision skips the replica set.
  await k('annotate', 'rs', first.metadata.name, 'deployment.kubernetes.io/revision=1e1', '--overwrite');
  await k('set', 'image', 'deployment/revs', 'app=app:2');
  const second = await eventually('a second replica set', async () => (await replicaSets('app=revs')).find((rs) => rs.metadata.name !== first.metadata.name));
  expect(second.metadata.annotations!['deployment.kubernetes.io/revision']).toBe('1');
  await k('delete', 'deployment', 'revs');
});
