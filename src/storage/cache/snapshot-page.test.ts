import type { KubeObject } from '../../api/types';
import { decodeContinue } from '../continue-token';
import { everything, type Predicate, type StorageEvent } from '../interfaces';
import { snapshotPage, type SnapshotSource } from './snapshot-page';

const P = '/registry/configmaps/';

function cm(name: string, rv: number, v = 'x'): KubeObject {
  return { metadata: { name, namespace: 'ns', resourceVersion: String(rv) }, data: { v } } as KubeObject;
}

const key = (name: string) => `${P}ns/${name}`;

function source(current: KubeObject[], later: StorageEvent[]): SnapshotSource {
  const byKey = new Map(current.map((o) => [key(o.metadata.name!), o]));
  return { keys: [...byKey.keys()].sort(), current: (k) => byKey.get(k), later };
}

const names = (items: KubeObject[]) => items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);

describe('snapshotPage', () => {
  // At revision 10: a@1, b@2, c@3. Then: d added (11), b modified (12), a deleted (13).
  const now = [cm('b', 12, 'new'), cm('c', 3), cm('d', 11)];
  const later: StorageEvent[] = [
    { type: 'ADDED', key: key('d'), object: cm('d', 11), revision: 11 },
    { type: 'MODIFIED', key: key('b'), object: cm('b', 12, 'new'), previous: cm('b', 2), revision: 12 },
    { type: 'DELETED', key: key('a'), object: cm('a', 13), previous: cm('a', 1), revision: 13 },
  ];

  test('undoes every later change: the objects as they were at the revision', () => {
    const page = snapshotPage(source(now, later), { prefix: P, revision: 10, start: P, limit: 0, predicate: everything });
    expect(names(page.items)).toEqual(['a@1', 'b@2', 'c@3']);
    expect(page.resourceVersion).toBe('10');
    expect(page.continue).toBeUndefined();
  });

  test('pages carry a token for the same revision and the count of what remains', () => {
    const first = snapshotPage(source(now, later), { prefix: P, revision: 10, start: P, limit: 2, predicate: everything });
    expect(names(first.items)).toEqual(['a@1', 'b@2']);
    expect(first.remainingItemCount).toBe(1);
    const token = decodeContinue(first.continue!);
    expect(token).toEqual({ revision: 10, startKey: 'ns/b\0' });
    const second = snapshotPage(source(now, later), { prefix: P, revision: 10, start: P + token.startKey, limit: 2, predicate: everything });
    expect(names(second.items)).toEqual(['c@3']);
    expect(second.continue).toBeUndefined();
  });

  test('a page that ends on the last object has no token', () => {
    const page = snapshotPage(source(now, []), { prefix: P, revision: 13, start: P, limit: 3, predicate: everything });
    expect(names(page.items)).toEqual(['b@12', 'c@3', 'd@11']);
    expect(page.continue).toBeUndefined();
  });

  test('with a selector: no remainingItemCount, and a token while keys remain, as etcd pages', () => {
    const onlyC: Predicate = { matches: (o) => o.metadata.name === 'c' || o.metadata.name === 'a', empty: false };
    const page = snapshotPage(source(now, later), { prefix: P, revision: 10, start: P, limit: 1, predicate: onlyC });
    expect(names(page.items)).toEqual(['a@1']);
    expect(page.remainingItemCount).toBeUndefined();
    expect(decodeContinue(page.continue!).startKey).toBe('ns/a\0');
  });

  test('a key deleted and re-created later shows its state at the revision', () => {
    const recreated: StorageEvent[] = [
      { type: 'DELETED', key: key('c'), object: cm('c', 11), previous: cm('c', 3), revision: 11 },
      { type: 'ADDED', key: key('c'), object: cm('c', 12, 'again'), revision: 12 },
    ];
    const page = snapshotPage(source([cm('c', 12, 'again')], recreated), { prefix: P, revision: 10, start: P, limit: 0, predicate: everything });
    expect(names(page.items)).toEqual(['c@3']);
  });
});
