import { kubectl } from '../harness/process';
import { JumpClock } from '../harness/jump-clock';
import { startTestServer } from '../harness/server';

/**
 * kube-controller-manager's cronjob controller on a clock the test moves: a server in this process
 * whose controllers keep time by a JumpClock, driven by real kubectl. The test jumps to each
 * schedule time; the job controller (same clock) runs the jobs, and the test finishes their pods
 * by writing pods/status as a kubelet would.
 */

const clock = new JumpClock();
let server: Awaited<ReturnType<typeof startTestServer>>;
const k = (...args: string[]) => kubectl(server.url, args);

beforeAll(async () => {
  server = await startTestServer({ controllerClock: clock });
});

afterAll(async () => {
  await server.close();
});

async function json<T = any>(...args: string[]): Promise<T> {
  const res = await k(...args, '-o', 'json');
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (let i = 0; i < 400 && Date.now() < deadline; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}

/** Jumps the controllers' clock just past the next whole minute (the "* * * * *" schedule's next time). */
function jumpPastNextMinute(): number {
  const now = clock.now();
  const next = now - (now % 60_000) + 60_000;
  clock.jump(next + 1000 - now);
  return next;
}

const jobsOf = async (cronJob: string): Promise<any[]> =>
  ((await json('get', 'jobs')).items as any[]).filter((j) => j.metadata.ownerReferences?.[0]?.name === cronJob && !j.metadata.deletionTimestamp);

async function finishJobPod(job: string): Promise<void> {
  const pod = await eventually(`a pod of ${job}`, async () => (await json('get', 'pods', '-l', `batch.kubernetes.io/job-name=${job}`)).items[0]);
  const now = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  const status = {
    phase: 'Succeeded',
    containerStatuses: [
      {
        name: 'job',
        image: 'busybox',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now } },
      },
    ],
  };
  expect((await k('patch', 'pod', pod.metadata.name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }))).code).toBe(0);
  expect((await k('wait', '--for=condition=complete', `job/${job}`, '--timeout=20s')).code).toBe(0);
}

async function events(name: string): Promise<string[]> {
  const list = await json('get', 'events', '--field-selector', `involvedObject.name=${name},involvedObject.kind=CronJob`);
  return (list.items as any[]).map((e) => `${e.type} ${e.reason} ${e.message}`);
}

test('a CronJob starts a Job at each schedule time, Forbid skips while one runs, and the history limit prunes finished ones', async () => {
  // The clock also runs in real time: made suspended, the CronJob cannot see a minute pass on its
  // own before the test jumps; resumed after the jump, kube starts the time it missed.
  const tick = await kubectl(server.url, [
    'create',
    'cronjob',
    'tick',
    '--image=busybox',
    '--schedule=* * * * *',
    '--restart=Never',
    '--dry-run=client',
    '-o',
    'json',
  ]);
  const manifest = JSON.parse(tick.stdout);
  manifest.spec = { ...manifest.spec, suspend: true, concurrencyPolicy: 'Forbid', successfulJobsHistoryLimit: 1 };
  expect((await kubectl(server.url, ['create', '-f', '-'], JSON.stringify(manifest))).code).toBe(0);
  const cronJob = await json('get', 'cronjob', 'tick');

  const first = jumpPastNextMinute();
  expect((await k('patch', 'cronjob', 'tick', '--type=merge', '-p', '{"spec":{"suspend":false}}')).code).toBe(0);
  const firstName = `tick-${first / 60_000}`;
  const [job] = await eventually('the first job', async () => {
    const jobs = await jobsOf('tick');
    return jobs.length === 1 ? jobs : undefined;
  });
  expect(job.metadata.name).toBe(firstName);
  expect(job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe(new Date(first).toISOString().replace('.000Z', 'Z'));
  expect(job.metadata.ownerReferences).toEqual([
    { apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: cronJob.metadata.uid, controller: true, blockOwnerDeletion: true },
  ]);
  const status = await eventually('status.active', async () => {
    const s = (await json('get', 'cronjob', 'tick')).status;
    return s?.active?.length === 1 ? s : undefined;
  });
  expect(status.active[0]).toMatchObject({ kind: 'Job', name: firstName, namespace: 'default', uid: job.metadata.uid, apiVersion: 'batch/v1' });
  expect(status.lastScheduleTime).toBe(new Date(first).toISOString().replace('.000Z', 'Z'));
  expect((await k('get', 'cronjob', 'tick')).stdout).toMatch(/\ntick\s+\* \* \* \* \*\s+<none>\s+False\s+1\s+\S+\s+\S+\n$/);

  // Forbid: the next time comes while the first job runs, and is skipped.
  jumpPastNextMinute();
  await eventually('JobAlreadyActive', async () =>
    (await events('tick')).includes('Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid')
      ? true
      : undefined,
  );
  expect((await jobsOf('tick')).map((j) => j.metadata.name)).toEqual([firstName]);

  // Once it finishes, the time Forbid skipped is still the most recent one missed: kube starts it then.
  const skipped = first + 60_000;
  const secondName = `tick-${skipped / 60_000}`;
  await finishJobPod(firstName);
  const next = await eventually('the skipped time started', async () => {
    const s = (await json('get', 'cronjob', 'tick')).status;
    return s.active?.[0]?.name === secondName ? s : undefined;
  });
  expect(next.lastSuccessfulTime).toEqual(expect.any(String));
  expect(next.lastScheduleTime).toBe(new Date(skipped).toISOString().replace('.000Z', 'Z'));
  expect(await events('tick')).toContain(`Normal SawCompletedJob Saw completed job: ${firstName}, condition: Complete`);

  await finishJobPod(secondName);
  // successfulJobsHistoryLimit 1: the older finished job is deleted.
  await eventually('the first job pruned', async () => {
    const names = (await jobsOf('tick')).map((j) => j.metadata.name);
    return names.length === 1 && names[0] === secondName ? true : undefined;
  });
  const seen = await events('tick');
  expect(seen).toEqual(
    expect.arrayContaining([
      `Normal SuccessfulCreate Created job ${firstName}`,
      `Normal SuccessfulCreate Created job ${secondName}`,
      `Normal SuccessfulDelete Deleted job ${firstName}`,
    ]),
  );
  expect((await k('delete', 'cronjob', 'tick')).code).toBe(0);
}, 120_000);

test('a suspended CronJob starts nothing; a start time further back than startingDeadlineSeconds is let go', async () => {
  // Made with their fields at once: the controllers' clock is ahead of the server's creationTimestamp by the jumps so far.
  const manifest = (name: string, schedule: string, extra: string) => `apiVersion: batch/v1
kind: CronJob
metadata:
  name: ${name}
spec:
  schedule: "${schedule}"
${extra}
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: main
            image: busybox
`;
  const input = `${manifest('paused', '* * * * *', '  suspend: true')}---\n${manifest('hourly', '@hourly', '  startingDeadlineSeconds: 10')}`;
  // Far from an hour's start (the earlier jumps put the clock ahead of the wall), so that the hourly
  // schedule comes only with the jumps below, never on its own while the objects are made.
  const untilHour = 3_600_000 - (clock.now() % 3_600_000);
  if (untilHour < 300_000) clock.jump(untilHour + 300_000);
  expect((await kubectl(server.url, ['apply', '-f', '-'], input)).code).toBe(0);
  // 30 s past the next hour: its start is 20 s too late, and skipped.
  const now = clock.now();
  const hour = now - (now % 3_600_000) + 3_600_000;
  clock.jump(hour + 30_000 - now);
  await new Promise((r) => setTimeout(r, 1000));
  expect(await jobsOf('hourly')).toEqual([]);
  expect((await json('get', 'cronjob', 'hourly')).status.lastScheduleTime).toBeUndefined();
  // 5 s past the hour after: within the deadline, started.
  clock.jump(3_600_000 - 25_000);
  const next = hour + 3_600_000;
  await eventually('the next hour started', async () =>
    (await jobsOf('hourly')).some((j) => j.metadata.name === `hourly-${next / 60_000}`) ? true : undefined,
  );
  expect(await jobsOf('paused')).toEqual([]);
});

test('Replace: a new schedule time deletes the running job and starts the next', async () => {
  const manifest = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: swap
spec:
  schedule: "* * * * *"
  concurrencyPolicy: Replace
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: main
            image: busybox
`;
  expect((await kubectl(server.url, ['apply', '-f', '-'], manifest)).code).toBe(0);
  // The controllers' clock is ahead of the creation time by the earlier jumps: the latest missed time starts at once.
  const [first] = await eventually('a first job', async () => {
    const jobs = await jobsOf('swap');
    return jobs.length === 1 ? jobs : undefined;
  });
  const next = jumpPastNextMinute();
  const secondName = `swap-${next / 60_000}`;
  await eventually('the first job replaced', async () => {
    const names = (await jobsOf('swap')).map((j) => j.metadata.name);
    return names.length === 1 && names[0] === secondName ? true : undefined;
  });
  await eventually('the events', async () => {
    const list = await events('swap');
    return list.includes(`Normal SuccessfulDelete Deleted job ${first.metadata.name}`) && list.includes(`Normal SuccessfulCreate Created job ${secondName}`)
      ? true
      : undefined;
  });
  expect((await json('get', 'cronjob', 'swap')).status.active.map((r: any) => r.name)).toEqual([secondName]);
});
