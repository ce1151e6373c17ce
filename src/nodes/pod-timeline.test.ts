import type { Pod } from '../generated/types/core/v1';
import { INIT_RUN_MS, planPod, SANDBOX_MS, type PodRun } from './pod-timeline';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const run = (over: Partial<PodRun> = {}): PodRun => ({
  admittedMs: T0,
  deletionSeenMs: null,
  hostIP: '172.18.0.2',
  podIP: '10.244.0.2',
  defaultRunMs: 1000,
  allocatable: new Map([
    ['cpu', 4000],
    ['memory', 8 * 1024 ** 3],
  ]),
  ...over,
});

function pod(spec: Pod['spec'], annotations?: Record<string, string>): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u-1', ...(annotations ? { annotations } : {}) }, spec };
}

const condition = (status: ReturnType<typeof planPod>['status'], type: string) => status.conditions?.find((c) => c.type === type);

test('a long-running pod: ContainerCreating, then Running; Ready once its readiness probe passes after initialDelaySeconds', () => {
  const web = pod({ containers: [{ name: 'app', image: 'nginx:1.27', readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 2 } }] });
  const creating = planPod(web, run(), T0);
  expect(creating.status).toMatchObject({ phase: 'Pending', hostIP: '172.18.0.2', startTime: '2026-01-01T00:00:00Z' });
  expect(creating.status.podIP).toBeUndefined();
  expect(creating.status.containerStatuses?.[0]).toMatchObject({ state: { waiting: { reason: 'ContainerCreating' } }, ready: false, restartCount: 0 });
  expect(condition(creating.status, 'PodReadyToStartContainers')?.status).toBe('False');
  expect(creating.nextChangeMs).toBe(T0 + SANDBOX_MS);

  const started = planPod(web, run(), T0 + SANDBOX_MS);
  expect(started.status).toMatchObject({ phase: 'Running', podIP: '10.244.0.2', podIPs: [{ ip: '10.244.0.2' }] });
  expect(started.status.containerStatuses?.[0]).toMatchObject({
    image: 'docker.io/library/nginx:1.27',
    imageID: expect.stringMatching(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/),
    containerID: expect.stringMatching(/^containerd:\/\/[0-9a-f]{64}$/),
    started: true,
    ready: false,
    state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
  });
  expect(condition(started.status, 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' });
  expect(started.nextChangeMs).toBe(T0 + SANDBOX_MS + 2000);

  const ready = planPod(web, run(), T0 + SANDBOX_MS + 2000);
  expect(ready.status.conditions?.map((c) => [c.type, c.status])).toEqual([
    ['PodReadyToStartContainers', 'True'],
    ['Initialized', 'True'],
    ['Ready', 'True'],
    ['ContainersReady', 'True'],
    ['PodScheduled', 'True'],
  ]);
  expect(ready.nextChangeMs).toBeNull();
  // The same facts give the same status: a restarted server carries on where it was.
  expect(planPod(web, run(), T0 + 60_000).status).toEqual(ready.status);
});

test('init containers run first, one after the other; a restartPolicy Never pod then exits 0 after the run duration', () => {
  const job = pod({
    restartPolicy: 'Never',
    initContainers: [
      { name: 'a', image: 'busybox' },
      { name: 'b', image: 'busybox' },
    ],
    containers: [{ name: 'main', image: 'busybox' }],
  });
  const first = planPod(job, run(), T0 + SANDBOX_MS);
  expect(first.status.initContainerStatuses?.map((s) => Object.keys(s.state ?? {})[0])).toEqual(['running', 'waiting']);
  expect(condition(first.status, 'Initialized')).toMatchObject({
    status: 'False',
    reason: 'ContainersNotInitialized',
    message: 'containers with incomplete status: [a b]',
  });
  expect(first.status.containerStatuses?.[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
  const mainStart = T0 + SANDBOX_MS + 2 * INIT_RUN_MS;
  const running = planPod(job, run(), mainStart);
  expect(running.status.phase).toBe('Running');
  expect(running.status.initContainerStatuses?.map((s) => s.state?.terminated?.reason)).toEqual(['Completed', 'Completed']);
  expect(running.nextChangeMs).toBe(mainStart + 1000);
  const done = planPod(job, run(), mainStart + 1000);
  expect(done.status.phase).toBe('Succeeded');
  expect(done.status.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  expect(condition(done.status, 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
  expect(condition(done.status, 'PodReadyToStartContainers')?.status).toBe('False');
  expect(done.nextChangeMs).toBeNull();
  expect(done.remove).toBe(false);
});

test('the exit code and run duration annotations: Never fails with Error; Always and OnFailure restart, backing off 10 s after the second exit', () => {
  const annotations = { 'kapi.io/simulated-exit-code': '3', 'kapi.io/simulated-run-duration': '2s' };
  const start = T0 + SANDBOX_MS;
  const failed = planPod(pod({ restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] }, annotations), run(), start + 2000);
  expect(failed.status.phase).toBe('Failed');
  expect(failed.status.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
  expect(condition(failed.status, 'Ready')?.reason).toBe('ContainersNotReady');

  const crashing = pod({ restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] }, annotations);
  const restarted = planPod(crashing, run(), start + 2500);
  expect(restarted.status.phase).toBe('Running');
  expect(restarted.status.containerStatuses?.[0]).toMatchObject({ restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 3 } } });
  const backingOff = planPod(crashing, run(), start + 4500);
  expect(backingOff.status.containerStatuses?.[0]).toMatchObject({
    restartCount: 1,
    ready: false,
    state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=c pod=p_ns(u-1)' } },
  });
  expect(backingOff.nextChangeMs).toBe(start + 4000 + 10_000);
  expect(planPod(crashing, run(), start + 14_000).status.containerStatuses?.[0].restartCount).toBe(2);

  // OnFailure with exit 0 is done; Always restarts whatever the code.
  const succeeded = planPod(pod({ restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] }), run(), start + 1000);
  expect(succeeded.status.phase).toBe('Succeeded');
  const always = planPod(pod({ containers: [{ name: 'c', image: 'busybox' }] }, { 'kapi.io/simulated-run-duration': '1s' }), run(), start + 1500);
  expect(always.status.containerStatuses?.[0]).toMatchObject({ restartCount: 1, lastState: { terminated: { exitCode: 0, reason: 'Completed' } } });
});

test('deletion: containers stop at once on SIGTERM, or after the stop duration within the grace period; then the pod is removed', () => {
  const web = pod({ terminationGracePeriodSeconds: 5, containers: [{ name: 'c', image: 'nginx' }] });
  const seen = T0 + 10_000;
  const stopped = planPod(web, run({ deletionSeenMs: seen }), seen);
  expect(stopped.remove).toBe(true);
  expect(stopped.status.phase).toBe('Succeeded');
  expect(stopped.status.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });

  const slow = pod({ terminationGracePeriodSeconds: 5, containers: [{ name: 'c', image: 'nginx' }] }, { 'kapi.io/simulated-stop-duration': '2s' });
  const stopping = planPod(slow, run({ deletionSeenMs: seen }), seen + 1000);
  expect(stopping.remove).toBe(false);
  expect(stopping.status.containerStatuses?.[0].state?.running).toBeDefined();
  expect(stopping.nextChangeMs).toBe(seen + 2000);
  expect(planPod(slow, run({ deletionSeenMs: seen }), seen + 2000).remove).toBe(true);

  const stubborn = pod({ terminationGracePeriodSeconds: 3, containers: [{ name: 'c', image: 'nginx' }] }, { 'kapi.io/simulated-stop-duration': '1m' });
  const killed = planPod(stubborn, run({ deletionSeenMs: seen }), seen + 3000);
  expect(killed.remove).toBe(true);
  expect(killed.status.phase).toBe('Failed');
  expect(killed.status.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
});

test('an ephemeral container runs from when the kubelet first sees it, keeps that start, and stops with the pod', () => {
  const debugged = pod({ containers: [{ name: 'app', image: 'nginx' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox', targetContainerName: 'app' }] });
  const seen = T0 + 60_000;
  const first = planPod(debugged, run(), seen);
  expect(first.status.ephemeralContainerStatuses).toEqual([
    expect.objectContaining({
      name: 'dbg',
      image: 'docker.io/library/busybox:latest',
      restartCount: 0,
      state: { running: { startedAt: '2026-01-01T00:01:00Z' } },
    }),
  ]);
  const reported = { ...debugged, status: first.status };
  expect(planPod(reported, run(), seen + 5000).status.ephemeralContainerStatuses?.[0].state).toEqual({ running: { startedAt: '2026-01-01T00:01:00Z' } });
  const stopped = planPod(reported, run({ deletionSeenMs: seen + 9000 }), seen + 9000);
  expect(stopped.status.ephemeralContainerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 0, startedAt: '2026-01-01T00:01:00Z' });
  // Before the sandbox is up it waits.
  expect(planPod(debugged, run(), T0).status.ephemeralContainerStatuses?.[0].state).toEqual({ waiting: { reason: 'ContainerCreating' } });
});

test('resize: the resources in effect follow the spec when the node holds them; beyond its allocatable the resize is Infeasible and the old ones stay', () => {
  const sized = (cpu: string) =>
    pod({ containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu, memory: '64Mi' }, limits: { cpu, memory: '128Mi' } } }] });
  const before = planPod(sized('500m'), run(), T0 + 1000);
  expect(before.status.containerStatuses?.[0].resources).toEqual({ requests: { cpu: '500m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } });
  expect(planPod(pod({ containers: [{ name: 'c', image: 'nginx' }] }), run(), T0 + 1000).status.containerStatuses?.[0].resources).toEqual({});

  const grown = planPod({ ...sized('2'), status: before.status }, run(), T0 + 2000);
  expect(grown.status.containerStatuses?.[0].resources?.limits).toEqual({ cpu: '2', memory: '128Mi' });
  expect(condition(grown.status, 'PodResizePending')).toBeUndefined();

  const tooBig = planPod({ ...sized('6'), status: grown.status }, run(), T0 + 3000);
  expect(tooBig.status.containerStatuses?.[0].resources?.limits).toEqual({ cpu: '2', memory: '128Mi' });
  expect(condition(tooBig.status, 'PodResizePending')).toEqual({
    type: 'PodResizePending',
    status: 'True',
    reason: 'Infeasible',
    message: "Node didn't have enough capacity: cpu, requested: 6000, capacity: 4000",
  });
});
