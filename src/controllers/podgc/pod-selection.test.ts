import type { Node, Pod } from '../../generated/types/core/v1';
import { NodeQuarantine } from './node-quarantine';
import { isPodTerminated, terminatedOverThreshold, terminatingOnOutOfServiceNodes, unscheduledTerminating } from './pod-selection';

const pod = (name: string, created: string, status: Pod['status'], extra: Partial<Pod['metadata']> = {}, nodeName?: string): Pod => ({
  metadata: { name, namespace: 'ns', creationTimestamp: created, ...extra },
  spec: { containers: [], ...(nodeName ? { nodeName } : {}) },
  status,
});

test('isPodTerminated is any phase but Pending, Running and Unknown', () => {
  expect((['Pending', 'Running', 'Unknown', 'Succeeded', 'Failed'] as const).map((phase) => isPodTerminated(pod('p', '', { phase })))).toEqual([
    false,
    false,
    false,
    true,
    true,
  ]);
});

test('the terminated pods over the threshold: evicted first, then by creation time, then by name', () => {
  const pods = [
    pod('new', '2026-01-01T00:00:03Z', { phase: 'Succeeded' }),
    pod('b-same-second', '2026-01-01T00:00:01Z', { phase: 'Failed' }),
    pod('a-same-second', '2026-01-01T00:00:01Z', { phase: 'Succeeded' }),
    pod('evicted-newest', '2026-01-01T00:00:09Z', { phase: 'Failed', reason: 'Evicted' }),
    pod('running-oldest', '2026-01-01T00:00:00Z', { phase: 'Running' }),
  ];
  expect(terminatedOverThreshold(pods, 1).map((p) => p.metadata.name)).toEqual(['evicted-newest', 'a-same-second', 'b-same-second']);
  expect(terminatedOverThreshold(pods, 4)).toEqual([]);
});

test('pods being deleted: unscheduled ones, and those on a NotReady node tainted out-of-service', () => {
  const deleting = { deletionTimestamp: '2026-01-01T00:00:05Z' };
  const node = (name: string, ready: string, outOfService: boolean): Node => ({
    metadata: { name },
    spec: outOfService ? { taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }] } : {},
    status: { conditions: [{ type: 'Ready', status: ready }] },
  });
  const nodes = new Map([
    ['down', node('down', 'False', true)],
    ['up', node('up', 'True', true)],
    ['untainted', node('untainted', 'Unknown', false)],
  ]);
  const pods = [
    pod('on-down', '2026-01-01T00:00:01Z', { phase: 'Running' }, deleting, 'down'),
    pod('on-down-not-deleting', '2026-01-01T00:00:01Z', { phase: 'Running' }, {}, 'down'),
    pod('on-up', '2026-01-01T00:00:01Z', { phase: 'Running' }, deleting, 'up'),
    pod('on-untainted', '2026-01-01T00:00:01Z', { phase: 'Running' }, deleting, 'untainted'),
    pod('unscheduled', '2026-01-01T00:00:01Z', { phase: 'Pending' }, deleting),
    pod('unscheduled-not-deleting', '2026-01-01T00:00:01Z', { phase: 'Pending' }),
  ];
  expect(terminatingOnOutOfServiceNodes(pods, nodes).map((p) => p.metadata.name)).toEqual(['on-down']);
  expect(unscheduledTerminating(pods).map((p) => p.metadata.name)).toEqual(['unscheduled']);
});

test('a missing node is released once its quarantine from when it was first seen missing is over', () => {
  const quarantine = new NodeQuarantine(40_000);
  quarantine.hold('gone', 1_000);
  quarantine.hold('gone', 30_000);
  quarantine.hold('late', 20_000);
  expect(quarantine.release(40_999)).toEqual([]);
  expect(quarantine.release(41_000)).toEqual(['gone']);
  expect(quarantine.release(41_000)).toEqual([]);
  expect(quarantine.release(60_000)).toEqual(['late']);
});
