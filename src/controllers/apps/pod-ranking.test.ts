import type { Pod } from '../../generated/types/core/v1';
import { podsToDelete } from './pod-ranking';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString().replace(/\.\d+Z$/, 'Z');

interface Shape {
  node?: string;
  phase?: 'Pending' | 'Running' | 'Unknown';
  readyFor?: number;
  cost?: string;
  restarts?: number;
  age?: number;
}

const pod = (name: string, s: Shape): Pod => ({
  metadata: {
    name,
    uid: name,
    creationTimestamp: ago(s.age ?? 3_600_000),
    ...(s.cost !== undefined ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': s.cost } } : {}),
  },
  spec: { ...(s.node ? { nodeName: s.node } : {}) },
  status: {
    phase: s.phase ?? 'Running',
    conditions: s.readyFor !== undefined ? [{ type: 'Ready', status: 'True', lastTransitionTime: ago(s.readyFor) }] : [],
    containerStatuses: [{ name: 'c', restartCount: s.restarts ?? 0 } as never],
  },
});

const order = (pods: Pod[], related: Pod[] = pods) => podsToDelete(pods, related, pods.length - 1, NOW).map((p) => p.metadata.name);

test('unassigned, then pending < unknown < running, then not ready, then cheaper go first', () => {
  const pods = [
    pod('ready', { node: 'n1', readyFor: 60_000 }),
    pod('unassigned', { readyFor: 60_000 }),
    pod('pending', { node: 'n1', phase: 'Pending' }),
    pod('unknown', { node: 'n1', phase: 'Unknown' }),
    pod('notready', { node: 'n1' }),
    pod('cheap', { node: 'n1', readyFor: 60_000, cost: '-5' }),
  ];
  expect(order(pods)).toEqual(['unassigned', 'pending', 'unknown', 'notready', 'cheap']);
});

test('doubled-up pods, then recently ready (log scale), then restarting, then younger go first', () => {
  const onBusyNode = pod('busy', { node: 'n1', readyFor: 3_600_000 });
  const sibling = pod('sibling', { node: 'n1', readyFor: 3_600_000 });
  const alone = pod('alone', { node: 'n2', readyFor: 3_600_000 });
  expect(podsToDelete([onBusyNode, alone], [onBusyNode, alone, sibling], 1, NOW).map((p) => p.metadata.name)).toEqual(['busy']);

  const fresh = pod('fresh', { node: 'n1', readyFor: 1_000 });
  const seasoned = pod('seasoned', { node: 'n2', readyFor: 86_400_000 });
  const restarting = pod('restarting', { node: 'n3', readyFor: 86_400_000 + 1, restarts: 4 });
  expect(order([seasoned, restarting, fresh])).toEqual(['fresh', 'restarting']);

  const young = pod('young', { node: 'n1', readyFor: 100_000_000, age: 60_000 });
  const old = pod('old', { node: 'n2', readyFor: 100_000_000, age: 86_400_000 });
  expect(order([old, young])).toEqual(['young']);
});

test('all of them when asked for as many', () => {
  const pods = [pod('a', {}), pod('b', {})];
  expect(podsToDelete(pods, pods, 5, NOW)).toHaveLength(2);
});
