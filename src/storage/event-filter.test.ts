import type { KubeObject } from '../api/types';
import { filterEvent } from './event-filter';
import { everything, type Predicate, type StorageEvent } from './interfaces';

const pod = (rv: string, app: string): KubeObject => ({ kind: 'Pod', metadata: { name: 'p', resourceVersion: rv, labels: { app } } });
const KEY = '/registry/pods/ns/p';
const appIsWeb: Predicate = { empty: false, matches: (o) => o.metadata.labels?.app === 'web' };

describe('filterEvent', () => {
  test('an empty predicate passes everything through untouched', () => {
    const event: StorageEvent = { key: KEY, type: 'MODIFIED', object: pod('5', 'db'), previous: pod('4', 'web'), revision: 5 };
    expect(filterEvent(event, everything)).toBe(event);
  });

  test('ADDED passes only when the object matches', () => {
    expect(filterEvent({ key: KEY, type: 'ADDED', object: pod('2', 'web'), revision: 2 }, appIsWeb)?.type).toBe('ADDED');
    expect(filterEvent({ key: KEY, type: 'ADDED', object: pod('2', 'db'), revision: 2 }, appIsWeb)).toBeNull();
  });

  test('MODIFIED inside the selection stays MODIFIED', () => {
    const event: StorageEvent = { key: KEY, type: 'MODIFIED', object: pod('5', 'web'), previous: pod('4', 'web'), revision: 5 };
    expect(filterEvent(event, appIsWeb)).toBe(event);
  });

  test('an object entering the selection is ADDED with its new state', () => {
    const event: StorageEvent = { key: KEY, type: 'MODIFIED', object: pod('5', 'web'), previous: pod('4', 'db'), revision: 5 };
    expect(filterEvent(event, appIsWeb)).toEqual({ ...event, type: 'ADDED' });
  });

  test("an object leaving the selection is DELETED, carrying its previous state at the event's resourceVersion", () => {
    const previous = pod('4', 'web');
    const event: StorageEvent = { key: KEY, type: 'MODIFIED', object: pod('5', 'db'), previous, revision: 5 };
    const out = filterEvent(event, appIsWeb);
    expect(out?.type).toBe('DELETED');
    expect(out?.object).toEqual({ kind: 'Pod', metadata: { name: 'p', resourceVersion: '5', labels: { app: 'web' } } });
    expect(previous.metadata.resourceVersion).toBe('4');
  });

  test('changes outside the selection vanish', () => {
    expect(filterEvent({ key: KEY, type: 'MODIFIED', object: pod('5', 'db'), previous: pod('4', 'db'), revision: 5 }, appIsWeb)).toBeNull();
  });

  test('DELETED passes when the object matched before it was deleted', () => {
    const gone: StorageEvent = { key: KEY, type: 'DELETED', object: pod('6', 'web'), previous: pod('5', 'web'), revision: 6 };
    expect(filterEvent(gone, appIsWeb)).toBe(gone);
    expect(filterEvent({ key: KEY, type: 'DELETED', object: pod('6', 'db'), previous: pod('5', 'db'), revision: 6 }, appIsWeb)).toBeNull();
    expect(filterEvent({ key: KEY, type: 'DELETED', object: pod('6', 'web'), revision: 6 }, appIsWeb)?.type).toBe('DELETED');
  });
});
