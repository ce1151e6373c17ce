import type { StorageEvent } from '../interfaces';
import { EventWindow } from './event-window';

const event = (revision: number): StorageEvent => ({
  type: 'ADDED',
  key: `/k/${revision}`,
  object: { metadata: { resourceVersion: String(revision) } },
  revision,
});

describe('EventWindow', () => {
  test('before anything is dropped, the window reaches back to its list revision', () => {
    const window = new EventWindow(10, 60_000, 2, () => 0);
    window.add(event(12));
    expect(window.start).toBe(10);
    expect(window.since(10)?.map((e) => e.revision)).toEqual([12]);
    expect(window.since(9)).toBeNull();
  });

  test("once events are dropped, the oldest held event's revision less one bounds it, as kube's getAllEventsSinceLocked", () => {
    const window = new EventWindow(10, 60_000, 2, () => 0);
    for (const revision of [12, 15, 20]) window.add(event(revision));
    // 12 dropped; 15 is the oldest held: resuming from 14 misses nothing, from 13 is too old.
    expect(window.start).toBe(14);
    expect(window.since(14)?.map((e) => e.revision)).toEqual([15, 20]);
    expect(window.since(13)).toBeNull();
  });

  test('events of one revision are never split: the bound stays at the dropped one', () => {
    const window = new EventWindow(10, 60_000, 1, () => 0);
    window.add(event(12));
    window.add({ ...event(12), key: '/k/other' });
    expect(window.start).toBe(12);
    expect(window.since(11)).toBeNull();
  });

  test('history older than --watch-cache-history is dropped by age', () => {
    let now = 0;
    const window = new EventWindow(1, 1000, 100, () => now);
    window.add(event(5));
    now = 500;
    window.add(event(7));
    now = 1200;
    window.evict();
    expect(window.start).toBe(6);
    expect(window.since(6)?.map((e) => e.revision)).toEqual([7]);
  });
});
