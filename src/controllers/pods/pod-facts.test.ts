import type { Pod } from '../../generated/types/core/v1';
import { selectorMatcher } from './selector';
import { factsAvailable, podFacts, podMatches } from './pod-facts';

const pod = (labels: Record<string, string>, ready?: string, owner?: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'p',
    namespace: 'ns',
    labels,
    ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }] } : {}),
  },
  status: ready ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ready }] } : { phase: 'Pending' },
});

describe('podFacts', () => {
  it('reads a pod version once and a new version afresh', () => {
    const pending = pod({ app: 'a' }, undefined, 'web');
    expect(podFacts(pending)).toMatchObject({ controllerUid: 'uid-web', active: true, ready: false });
    expect(podFacts(pending)).toBe(podFacts(pending));
    const running = pod({ app: 'a' }, '2026-01-01T00:00:00Z', 'web');
    expect(podFacts(running)).toMatchObject({ ready: true, readySinceMs: Date.parse('2026-01-01T00:00:00Z') });
    expect(podFacts({ ...running, metadata: { ...running.metadata, deletionTimestamp: '2026-01-01T00:00:01Z' } }).active).toBe(false);
    expect(podFacts(pod({})).controllerUid).toBeUndefined();
  });

  it('answers availability as podutil.IsPodAvailable', () => {
    const facts = podFacts(pod({}, '2026-01-01T00:00:00Z'));
    const at = Date.parse('2026-01-01T00:00:00Z');
    expect(factsAvailable(facts, 0, at)).toBe(true);
    expect(factsAvailable(facts, 5, at + 4_999)).toBe(false);
    expect(factsAvailable(facts, 5, at + 5_000)).toBe(true);
    expect(factsAvailable(podFacts(pod({})), 0, at)).toBe(false);
  });

  it('asks another selector again', () => {
    const facts = podFacts(pod({ app: 'a' }));
    expect(podMatches(facts, selectorMatcher({ matchLabels: { app: 'a' } }))).toBe(true);
    expect(podMatches(facts, selectorMatcher({ matchLabels: { app: 'b' } }))).toBe(false);
  });
});
