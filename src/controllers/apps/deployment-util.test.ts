import type { Deployment, ReplicaSet } from '../../generated/types/apps/v1';
import { maxSurge, maxUnavailable, newReplicaSetReplicas, replicaSetProportion, setCondition, setNewReplicaSetAnnotations } from './deployment-util';

const deployment = (replicas: number, surge: number | string, unavailable: number | string, extra: Partial<Deployment> = {}): Deployment => ({
  metadata: { name: 'd', annotations: { 'kubernetes.io/change-cause': 'why', 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
  spec: { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } },
  ...extra,
});
const rs = (name: string, replicas: number, annotations: Record<string, string> = {}): ReplicaSet => ({ metadata: { name, annotations }, spec: { replicas } });

test('maxSurge rounds up, maxUnavailable down; both zero allows one unavailable; Recreate has neither', () => {
  expect([maxSurge(deployment(10, '25%', '25%')), maxUnavailable(deployment(10, '25%', '25%'))]).toEqual([3, 2]);
  expect([maxSurge(deployment(3, '25%', '25%')), maxUnavailable(deployment(3, '25%', '25%'))]).toEqual([1, 0]);
  expect([maxSurge(deployment(1, 0, '10%')), maxUnavailable(deployment(1, 0, '10%'))]).toEqual([0, 1]);
  expect(maxUnavailable(deployment(2, 0, 5))).toBe(2);
  const recreate = deployment(3, 1, 1, { spec: { replicas: 3, strategy: { type: 'Recreate' } } });
  expect([maxSurge(recreate), maxUnavailable(recreate)]).toEqual([0, 0]);
});

test('the new replica set grows within maxSurge and never past the desired count', () => {
  const d = deployment(4, 1, 1);
  const newRs = rs('new', 0);
  expect(newReplicaSetReplicas(d, [rs('old', 4), newRs], newRs)).toBe(1);
  expect(newReplicaSetReplicas(d, [rs('old', 3), rs('new', 1)], rs('new', 1))).toBe(2);
  expect(newReplicaSetReplicas(d, [rs('old', 3), rs('new', 2)], rs('new', 2))).toBe(2);
  expect(newReplicaSetReplicas(deployment(4, '100%', 0), [rs('old', 4), newRs], newRs)).toBe(4);
});

test('proportions of a resize follow max-replicas, rounded half away from zero', () => {
  const d = deployment(8, 1, 1);
  const old = rs('old', 3, { 'deployment.kubernetes.io/max-replicas': '5' });
  const fresh = rs('new', 2, { 'deployment.kubernetes.io/max-replicas': '5' });
  expect(replicaSetProportion(old, d, 4, 0)).toBe(2);
  expect(replicaSetProportion(fresh, d, 4, 2)).toBe(2);
  expect(replicaSetProportion(fresh, d, 4, 4)).toBe(0);
  // Scaling down to 2 (max 3): 3*3/5 = 1.8 -> 2, so -1; capped by what is left to remove.
  const down = deployment(2, 1, 1);
  expect(replicaSetProportion(old, down, -2, 0)).toBe(-1);
  expect(replicaSetProportion(old, deployment(0, 1, 1), -5, 0)).toBe(-3);
});

test('annotations: copied from the deployment but for kubectl and deployment ones; a rollback keeps the old revision in revision-history', () => {
  const d = deployment(3, '25%', '25%');
  const created = rs('x', 3);
  expect(setNewReplicaSetAnnotations(d, created, 1, false)).toBe(true);
  expect(created.metadata.annotations).toEqual({
    'kubernetes.io/change-cause': 'why',
    'deployment.kubernetes.io/revision': '1',
    'deployment.kubernetes.io/desired-replicas': '3',
    'deployment.kubernetes.io/max-replicas': '4',
  });
  expect(setNewReplicaSetAnnotations(d, created, 1, true)).toBe(false);
  expect(setNewReplicaSetAnnotations(d, created, 4, true)).toBe(true);
  expect(setNewReplicaSetAnnotations(d, created, 6, true)).toBe(true);
  expect(created.metadata.annotations!['deployment.kubernetes.io/revision']).toBe('6');
  expect(created.metadata.annotations!['deployment.kubernetes.io/revision-history']).toBe('1,4');
  // Never lowered.
  expect(setNewReplicaSetAnnotations(d, created, 2, true)).toBe(false);
});

test('a condition with the same status and reason is kept; the same status keeps its transition time and moves last', () => {
  const status = {
    conditions: [
      { type: 'Progressing', status: 'True', reason: 'A', lastTransitionTime: 't0', lastUpdateTime: 't0' },
      { type: 'Available', status: 'True', reason: 'M' },
    ],
  };
  setCondition(status, { type: 'Progressing', status: 'True', reason: 'A', lastTransitionTime: 't1', lastUpdateTime: 't1' });
  expect(status.conditions[0].lastUpdateTime).toBe('t0');
  setCondition(status, { type: 'Progressing', status: 'True', reason: 'B', lastTransitionTime: 't2', lastUpdateTime: 't2' });
  expect(status.conditions.map((c) => [c.type, c.reason, c.lastTransitionTime, c.lastUpdateTime])).toEqual([
    ['Available', 'M', undefined, undefined],
    ['Progressing', 'B', 't0', 't2'],
  ]);
});
