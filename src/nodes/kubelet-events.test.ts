import type { Pod, PodStatus } from '../generated/types/core/v1';
import { containerEvents, NodeImages } from './kubelet-events';
import { planPod, SANDBOX_MS, type PodRun } from './pod-timeline';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const run: PodRun = {
  admittedMs: T0,
  deletionSeenMs: null,
  hostIP: '172.18.0.2',
  podIP: '10.244.0.2',
  defaultRunMs: 1000,
  allocatable: new Map([['cpu', 4000]]),
};

function crashing(runDuration: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'ns',
      uid: 'u-1',
      annotations: { 'kapi.io/simulated-exit-code': '1', 'kapi.io/simulated-run-duration': runDuration },
    },
    spec: { restartPolicy: 'Always', containers: [{ name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] },
  };
}

/** The events of the statuses the kubelet writes at each of `times`, one after the other, as reason lists. */
function eventsAt(pod: Pod, times: number[]): string[][] {
  const images = new NodeImages();
  let before: PodStatus | undefined;
  return times.map((ms) => {
    const after = planPod({ ...pod, status: before }, run, ms).status;
    const reasons = containerEvents(pod, before, after, images).map((e) => `${e.reason} ${e.fieldPath}`);
    before = after;
    return reasons;
  });
}

const start = ['Created spec.containers{app}', 'Started spec.containers{app}'];

test('a run that began and ended between two statuses is created and started too', () => {
  // Runs of no time: the first status already shows the second run's exit, waiting out a back-off.
  const [first] = eventsAt(crashing('0s'), [T0 + SANDBOX_MS]);
  expect(first).toEqual([
    'Pulling spec.containers{app}',
    'Pulled spec.containers{app}',
    ...start,
    'Pulled spec.containers{app}',
    ...start,
    'BackOff spec.containers{app}',
  ]);
});

test('each back-off after another exit is recorded, also when the run between was not seen', () => {
  const at = (s: number) => T0 + SANDBOX_MS + s * 1000;
  // 0s runs: exits at 0 (restart at once), 0 (back-off 10 s), 10 (back-off 20 s), 30 ...
  const [, second, third] = eventsAt(crashing('0s'), [at(0), at(10), at(30)]);
  expect(second).toEqual(['Pulled spec.containers{app}', ...start, 'BackOff spec.containers{app}']);
  expect(third).toEqual(['Pulled spec.containers{app}', ...start, 'BackOff spec.containers{app}']);
});

test('a status written again records nothing new', () => {
  const at = T0 + SANDBOX_MS;
  const [, again] = eventsAt(crashing('5s'), [at, at + 1]);
  expect(again).toEqual([]);
});
