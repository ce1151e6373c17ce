import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

// kube-controller-manager's clean-up of pods and Jobs, seen through kubectl: the pod garbage
// collector (terminated pods over --terminated-pod-gc-threshold, pods bound to a node that does
// not exist, unscheduled pods being deleted) and the ttl-after-finished controller. No kubelet
// runs here: pod and Job status is written through the status subresources, as a kubelet and
// the job controller would.

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);
const apply = async (manifest: string) => {
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(res.stderr).toBe('');
};
const setStatus = async (what: string, namespace: string, status: object) => {
  const res = await k('patch', what, '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
  expect(res.stderr).toBe('');
};

/** Polls `read` until `done` holds of it (20 s at most), and returns what was read last. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await read();
  }
  return value;
}

const podNames = async (namespace: string): Promise<string[]> =>
  (await k('get', 'pods', '-n', namespace, '-o', 'jsonpath={.items[*].metadata.name}')).stdout.split(' ').filter(Boolean).sort();
const getJson = async (what: string, namespace: string) => {
  const res = await k('get', what, '-n', namespace, '-o', 'json', '--ignore-not-found');
  return res.stdout.trim() ? JSON.parse(res.stdout) : null;
};

const pod = (namespace: string, name: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${namespace}
${extra}spec:
  containers:
  - name: app
    image: busybox:1.36
`;

beforeAll(async () => {
  // The test writes Jobs' status and pods as the job controller would: that controller stays off.
  kapi = await startServerProcess(['--terminated-pod-gc-threshold=2', '--pod-gc-period=300ms', '--pod-gc-quarantine=1s', '--controllers=*,-job-controller']);
  expect((await k('create', 'namespace', 'gc')).code).toBe(0);
  expect((await k('create', 'namespace', 'orphans')).code).toBe(0);
  expect((await k('create', 'namespace', 'jobs')).code).toBe(0);
});

afterAll(async () => {
  await kapi?.stop();
});

test('terminated pods over the threshold are deleted, evicted ones first, then the oldest; running ones stay', async () => {
  await apply(['done-a', 'done-b', 'done-c', 'done-d', 'evicted', 'running'].map((name) => pod('gc', name)).join('---\n'));
  await setStatus('pod/running', 'gc', { phase: 'Running' });
  await setStatus('pod/evicted', 'gc', { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' });
  for (const name of ['done-a', 'done-b', 'done-c', 'done-d']) await setStatus(`pod/${name}`, 'gc', { phase: 'Succeeded' });
  const left = await until(
    () => podNames('gc'),
    (names) => names.length <= 3,
  );
  expect(left).toEqual(['done-c', 'done-d', 'running']);
});

test('a pod bound to a node that does not exist is marked Failed with DisruptionTarget, then deleted; pods on real nodes stay', async () => {
  await apply(`apiVersion: v1
kind: Node
metadata:
  name: real-node
`);
  await apply(pod('orphans', 'stray', '  finalizers: [example.com/hold]\n'));
  await apply(pod('orphans', 'kept').replace('spec:\n', 'spec:\n  nodeName: real-node\n'));
  await setStatus('pod/stray', 'orphans', { phase: 'Running' });
  // Bound only once Running, as a scheduler would bind it: the garbage collector never sees it unbound and running.
  const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'stray' }, target: { apiVersion: 'v1', kind: 'Node', name: 'gone-node' } };
  const bound = await kubectl(kapi.url, ['create', '--raw', '/api/v1/namespaces/orphans/pods/stray/binding', '-f', '-'], JSON.stringify(binding));
  expect(bound.stderr).toBe('');
  const stray = await until(
    () => getJson('pod/stray', 'orphans'),
    (p) => !!p?.metadata.deletionTimestamp,
  );
  expect(stray.metadata.deletionGracePeriodSeconds).toBe(0);
  expect(stray.status.phase).toBe('Failed');
  expect(stray.status.conditions).toContainEqual({
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'DeletionByPodGC',
    message: 'PodGC: node no longer exists',
    lastProbeTime: null,
    lastTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
  });
  // The finalizer was the only thing holding it.
  expect((await k('patch', 'pod/stray', '-n', 'orphans', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]')).code).toBe(0);
  expect(
    await until(
      () => podNames('orphans'),
      (names) => !names.includes('stray'),
    ),
  ).toEqual(['kept']);
  const kept = await getJson('pod/kept', 'orphans');
  expect([kept.status.phase, kept.metadata.deletionTimestamp]).toEqual(['Pending', undefined]);
});

test('an unscheduled pod being deleted is marked Failed and deleted at once', async () => {
  await apply(pod('orphans', 'never-scheduled', '  finalizers: [example.com/hold]\n'));
  await setStatus('pod/never-scheduled', 'orphans', { phase: 'Pending' });
  expect((await k('delete', 'pod/never-scheduled', '-n', 'orphans', '--wait=false')).code).toBe(0);
  const deleted = await until(
    () => getJson('pod/never-scheduled', 'orphans'),
    (p) => p?.status.phase === 'Failed',
  );
  expect(deleted.status.phase).toBe('Failed');
  expect(deleted.metadata.deletionGracePeriodSeconds).toBe(0);
  // podgc sets no DisruptionTarget here: the pod was deleted by someone else.
  expect((deleted.status.conditions ?? []).map((c: { type: string }) => c.type)).not.toContain('DisruptionTarget');
  expect((await k('patch', 'pod/never-scheduled', '-n', 'orphans', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]')).code).toBe(0);
});

const job = (name: string, ttl: number) => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  namespace: jobs
spec:
  ttlSecondsAfterFinished: ${ttl}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox:1.36
`;

/** The status the job controller writes when a Job has succeeded, `agoSeconds` ago. */
const completed = (agoSeconds: number) => {
  const at = new Date(Date.now() - agoSeconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = (type: string) => ({ type, status: 'True', lastProbeTime: at, lastTransitionTime: at });
  return { startTime: at, completionTime: at, succeeded: 1, conditions: [condition('SuccessCriteriaMet'), condition('Complete')] };
};

test('a finished Job is deleted ttlSecondsAfterFinished after it finished, with its pods; an unfinished one and one not due stay', async () => {
  await apply(job('expired', 5));
  await apply(job('soon', 2));
  await apply(job('later', 3600));
  await apply(job('running', 0));
  const expired = await getJson('job/expired', 'jobs');
  // A pod of the Job, as the job controller makes them: deleting the Job in the background takes it too.
  await apply(
    pod(
      'jobs',
      'expired-worker',
      `  ownerReferences:\n  - {apiVersion: batch/v1, kind: Job, name: expired, uid: ${expired.metadata.uid}, controller: true, blockOwnerDeletion: true}\n`,
    ),
  );
  await setStatus('job/expired', 'jobs', completed(10));
  await setStatus('job/later', 'jobs', completed(0));
  await setStatus('job/soon', 'jobs', completed(0));
  const gone = await until(
    async () => (await k('get', 'jobs', '-n', 'jobs', '-o', 'jsonpath={.items[*].metadata.name}')).stdout,
    (names) => !names.includes('expired') && !names.includes('soon'),
  );
  expect(gone.split(' ').sort()).toEqual(['later', 'running']);
  expect(
    await until(
      () => podNames('jobs'),
      (names) => names.length === 0,
    ),
  ).toEqual([]);
});
