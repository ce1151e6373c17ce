import type { ControllerRevision } from '../../generated/types/apps/v1';
import { computeHash, equalRevision, nextRevision, revisionsOf, sortedJson, templateOf, templatePatch } from './controller-history';

test('the template patch is what kubectl builds from the live object: keys sorted, Go zero values, $patch: replace', () => {
  const patch = templatePatch({ metadata: { labels: { b: '1', a: '2' } }, spec: { containers: [{ name: 'c', image: 'i' }] } });
  expect(JSON.stringify(patch)).toBe(
    '{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"a":"2","b":"1"}},"spec":{"containers":[{"image":"i","name":"c","resources":{}}]}}}}',
  );
  expect(templateOf({ metadata: {}, data: patch })).toEqual({
    metadata: { labels: { a: '2', b: '1' } },
    spec: { containers: [{ image: 'i', name: 'c', resources: {} }] },
  });
  expect(sortedJson([{ b: 1, a: [{ d: 1, c: 2 }] }])).toEqual([{ a: [{ c: 2, d: 1 }], b: 1 }]);
});

test('hashes: stable, safe-encoded, changed by the collision count, blind to key order', () => {
  const hash = computeHash({ a: 1, b: 2 }, undefined);
  expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  expect(computeHash({ b: 2, a: 1 }, undefined)).toBe(hash);
  expect(computeHash({ a: 1, b: 2 }, 1)).not.toBe(hash);
  expect(computeHash({ a: 1, b: 3 }, undefined)).not.toBe(hash);
});

test('revisions: equal by data, numbered one past the highest', () => {
  const rev = (name: string, revision: number, data: object): ControllerRevision => ({ metadata: { name }, revision, data: data as Record<string, unknown> });
  expect(equalRevision(rev('a', 1, { x: 1 }), rev('b', 5, { x: 1 }))).toBe(true);
  expect(equalRevision(rev('a', 1, { x: 1 }), rev('a', 1, { x: 2 }))).toBe(false);
  expect(nextRevision([])).toBe(1);
  expect(nextRevision([rev('a', 3, {}), rev('b', 7, {})])).toBe(8);
});

test("an owner's revisions: by number, then the older created, then by name (history.SortControllerRevisions)", () => {
  const owner = { metadata: { name: 'o', namespace: 'ns', uid: 'u' } };
  const rev = (name: string, revision: number, created: string): ControllerRevision => ({
    metadata: {
      name,
      namespace: 'ns',
      creationTimestamp: created,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'o', uid: 'u', controller: true }],
    },
    revision,
  });
  const sorted = revisionsOf(
    [rev('a', 2, '2026-01-01T00:00:02Z'), rev('b', 2, '2026-01-01T00:00:01Z'), rev('c', 1, '2026-01-01T00:00:09Z'), rev('d', 2, '2026-01-01T00:00:01Z')],
    owner,
  );
  expect(sorted.map((r) => r.metadata.name)).toEqual(['c', 'b', 'd', 'a']);
});
