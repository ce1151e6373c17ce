import { kubectl, serverProcessForFile } from '../harness/process';

/**
 * kube-controller-manager's job controller through real kubectl: pods created as parallelism and
 * completions say, counted through the job-tracking finalizer as the test finishes them (no kubelet
 * here: the test writes pods/status as one would), and the outcome in kube's conditions and events.
 */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

async function json<T = any>(...args: string[]): Promise<T> {
  const res = await k(...args, '-o', 'json');
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

async function apply(manifest: string): Promise<void> {
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  if (res.code !== 0) throw new Error(res.stderr);
}

/** Polls until `check` returns a value (not undefined), for at most 20 s. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  let last: unknown;
  for (let i = 0; i < 400; i++) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}${last ? ` (${String(last)})` : ''}`);
}

/** The job's pods that are not being deleted, by name. */
async function podsOf(job: string): Promise<any[]> {
  const list = await json('get', 'pods', '-l', `batch.kubernetes.io/job-name=${job}`);
  return (list.items as any[]).filter((p) => !p.metadata.deletionTimestamp).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

async function podsCount(job: string, count: number): Promise<any[]> {
  return eventually(`${count} pods of ${job}`, async () => {
    const pods = await podsOf(job);
    return pods.filter((p) => !p.status?.phase || p.status.phase === 'Pending').length === count
      ? pods.filter((p) => p.status?.phase === 'Pending')
      : undefined;
  });
}

/** What a kubelet writes when the pod's only container exits. */
async function finish(pod: any, exitCode: number): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const container = pod.spec.containers[0];
  const status = {
    phase: exitCode === 0 ? 'Succeeded' : 'Failed',
    conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: now, reason: 'PodCompleted' }],
    containerStatuses: [
      {
        name: container.name,
        image: container.image,
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: now, finishedAt: now } },
      },
    ],
  };
  const res = await k('patch', 'pod', pod.metadata.name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
  if (res.code !== 0) throw new Error(res.stderr);
}

const jobManifest = (name: string, spec: string, restartPolicy = 'Never') => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec}
  template:
    spec:
      restartPolicy: ${restartPolicy}
      containers:
      - name: main
        image: busybox
        command: ["true"]
`;

async function events(name: string): Promise<string[]> {
  const list = await json('get', 'events', '--field-selector', `involvedObject.name=${name},involvedObject.kind=Job`);
  return (list.items as any[]).map((e) => `${e.type} ${e.reason} ${e.message}`);
}

test('a Job with completions=3 and parallelism=2 runs two pods at a time, counts each once and completes', async () => {
  await apply(jobManifest('pi', '  completions: 3\n  parallelism: 2'));
  const first = await podsCount('pi', 2);
  const job = await json('get', 'job', 'pi');
  for (const pod of first) {
    expect(pod.metadata.generateName).toBe('pi-');
    expect(pod.metadata.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
    expect(pod.metadata.labels).toMatchObject({
      'batch.kubernetes.io/job-name': 'pi',
      'job-name': 'pi',
      'batch.kubernetes.io/controller-uid': job.metadata.uid,
    });
    expect(pod.metadata.ownerReferences).toEqual([
      { apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: job.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
  }
  expect(await eventually('active 2', async () => ((await json('get', 'job', 'pi')).status.active === 2 ? true : undefined))).toBe(true);

  await finish(first[0], 0);
  // The one that finished is replaced, as one completion is still left for it.
  const second = await eventually('a third pod', async () => {
    const pods = await podsOf('pi');
    return pods.length === 3 && pods.filter((p) => p.status?.phase === 'Pending').length === 2 ? pods : undefined;
  });
  const done = await json('get', 'pod', first[0].metadata.name);
  expect(done.metadata.finalizers).toBeUndefined();
  for (const pod of second.filter((p) => p.status?.phase === 'Pending')) await finish(pod, 0);

  expect((await k('wait', '--for=condition=complete', 'job/pi', '--timeout=20s')).stdout.trim()).toBe('job.batch/pi condition met');
  const complete = await json('get', 'job', 'pi');
  expect(complete.status).toMatchObject({ succeeded: 3, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
  // Counts that are 0 are left out, as kube's omitempty fields.
  expect(complete.status.failed).toBeUndefined();
  expect(complete.status.active).toBeUndefined();
  expect(complete.status.completionTime).toEqual(expect.any(String));
  expect(complete.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).toEqual([
    ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
  ]);
  expect((await k('get', 'job', 'pi')).stdout).toMatch(/\npi\s+Complete\s+3\/3\s+/);
  const seen = await eventually('events', async () => {
    const list = await events('pi');
    return list.some((e) => e.startsWith('Normal Completed')) ? list : undefined;
  });
  expect(seen.filter((e) => e.startsWith('Normal SuccessfulCreate Created pod: pi-'))).toHaveLength(3);
  expect(seen).toContain('Normal Completed Job completed');
  expect((await podsOf('pi')).every((p) => !p.metadata.finalizers)).toBe(true);
});

test('a failing Job reaches its backoffLimit: FailureTarget, then Failed with BackoffLimitExceeded, and the Warning event', async () => {
  await apply(jobManifest('flaky', '  completions: 2\n  parallelism: 2\n  backoffLimit: 1'));
  for (const pod of await podsCount('flaky', 2)) await finish(pod, 1);
  expect((await k('wait', '--for=condition=failed', 'job/flaky', '--timeout=20s')).code).toBe(0);
  const job = await json('get', 'job', 'flaky');
  expect(job.status).toMatchObject({ failed: 2, ready: 0, uncountedTerminatedPods: {} });
  expect(job.status.active).toBeUndefined();
  expect(job.status.completionTime).toBeUndefined();
  const message = 'Job has reached the specified backoff limit';
  expect(job.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).toEqual([
    ['FailureTarget', 'True', 'BackoffLimitExceeded', message],
    ['Failed', 'True', 'BackoffLimitExceeded', message],
  ]);
  expect((await k('get', 'job', 'flaky')).stdout).toMatch(/\nflaky\s+Failed\s+0\/2\s+/);
  await eventually('the failure event', async () => ((await events('flaky')).includes(`Warning BackoffLimitExceeded ${message}`) ? true : undefined));
  // No pod is made after the job has failed.
  expect((await podsOf('flaky')).filter((p) => p.status?.phase === 'Pending')).toEqual([]);
});

test('an Indexed Job gives each pod its index (annotation, label, hostname, env) and tracks completedIndexes', async () => {
  await apply(jobManifest('idx', '  completions: 3\n  parallelism: 3\n  completionMode: Indexed'));
  const pods = await podsCount('idx', 3);
  const byIndex = new Map(pods.map((p) => [p.metadata.annotations['batch.kubernetes.io/job-completion-index'], p]));
  expect([...byIndex.keys()].sort()).toEqual(['0', '1', '2']);
  for (const [index, pod] of byIndex) {
    expect(pod.metadata.generateName).toBe(`idx-${index}-`);
    expect(pod.metadata.labels['batch.kubernetes.io/job-completion-index']).toBe(index);
    expect(pod.spec.hostname).toBe(`idx-${index}`);
    expect(pod.spec.containers[0].env).toEqual([
      {
        name: 'JOB_COMPLETION_INDEX',
        valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
      },
    ]);
  }
  await finish(byIndex.get('1'), 0);
  await eventually('completedIndexes 1', async () => ((await json('get', 'job', 'idx')).status.completedIndexes === '1' ? true : undefined));
  await finish(byIndex.get('0'), 0);
  await finish(byIndex.get('2'), 0);
  expect((await k('wait', '--for=condition=complete', 'job/idx', '--timeout=20s')).code).toBe(0);
  expect((await json('get', 'job', 'idx')).status).toMatchObject({ succeeded: 3, completedIndexes: '0-2' });
});

test('a podFailurePolicy FailJob rule on an exit code fails the Job at once, whatever the backoffLimit', async () => {
  await apply(
    jobManifest(
      'policy',
      '  backoffLimit: 6\n  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes:\n        operator: In\n        values: [42]',
    ),
  );
  const [pod] = await podsCount('policy', 1);
  await finish(pod, 42);
  expect((await k('wait', '--for=condition=failed', 'job/policy', '--timeout=20s')).code).toBe(0);
  const failed = (await json('get', 'job', 'policy')).status.conditions.find((c: any) => c.type === 'Failed');
  expect(failed).toMatchObject({
    reason: 'PodFailurePolicy',
    message: `Container main for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 0`,
  });
});

test('activeDeadlineSeconds fails a Job with DeadlineExceeded and deletes its pods; a suspended Job has no pods until resumed', async () => {
  await apply(jobManifest('slow', '  activeDeadlineSeconds: 1'));
  expect((await k('wait', '--for=condition=failed', 'job/slow', '--timeout=20s')).code).toBe(0);
  const slow = await json('get', 'job', 'slow');
  expect(slow.status.conditions.find((c: any) => c.type === 'Failed')).toMatchObject({
    reason: 'DeadlineExceeded',
    message: 'Job was active longer than specified deadline',
  });
  await eventually('the deadline job has no pods', async () => ((await podsOf('slow')).length === 0 ? true : undefined));

  // A job another controller manages gets no pods and no status from this one.
  await apply(jobManifest('elsewhere', '  managedBy: example.com/queue'));
  await apply(jobManifest('later', '  suspend: true'));
  const suspended = await eventually('Suspended', async () => {
    const job = await json('get', 'job', 'later');
    return job.status?.conditions?.find((c: any) => c.type === 'Suspended');
  });
  expect(suspended).toMatchObject({ status: 'True', reason: 'JobSuspended', message: 'Job suspended' });
  expect(await podsOf('later')).toEqual([]);
  expect((await k('patch', 'job', 'later', '--type=merge', '-p', '{"spec":{"suspend":false}}')).code).toBe(0);
  await podsCount('later', 1);
  const resumed = (await json('get', 'job', 'later')).status.conditions.find((c: any) => c.type === 'Suspended');
  expect(resumed).toMatchObject({ status: 'False', reason: 'JobResumed', message: 'Job resumed' });
  const seen = await eventually('resume event', async () => {
    const list = await events('later');
    return list.includes('Normal Resumed Job resumed') ? list : undefined;
  });
  expect(seen).toContain('Normal Suspended Job suspended');
  expect(await podsOf('elsewhere')).toEqual([]);
  expect((await json('get', 'job', 'elsewhere')).status).toEqual({});
});

test('kubectl create job --from=cronjob runs the template: a pod of the new job, which completes', async () => {
  expect((await k('create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *')).code).toBe(0);
  expect((await k('create', 'job', '--from=cronjob/nightly', 'manual')).stdout.trim()).toBe('job.batch/manual created');
  const [pod] = await podsCount('manual', 1);
  expect(pod.spec.restartPolicy).toBe('OnFailure');
  await finish(pod, 0);
  expect((await k('wait', '--for=condition=complete', 'job/manual', '--timeout=20s')).code).toBe(0);
  // The CronJob did not start it: the controller says so, and does not list it as active.
  const cronJob = await json('get', 'cronjob', 'nightly');
  expect(cronJob.status.active).toBeUndefined();
});

test('deleting a Job deletes its pods: the garbage collector takes them, the controller lets go of their finalizer', async () => {
  await apply(jobManifest('gone', '  parallelism: 2\n  completions: 2'));
  await podsCount('gone', 2);
  expect((await k('delete', 'job', 'gone', '--wait=true', '--timeout=20s')).code).toBe(0);
  await eventually('the pods are gone', async () =>
    (await json('get', 'pods', '-l', 'batch.kubernetes.io/job-name=gone')).items.length === 0 ? true : undefined,
  );
});
