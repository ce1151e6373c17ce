import type { ObjectStore } from '../../registry/types';
import type { KubeObject } from '../../api/types';
import { systemContext, SERVER_OWN_WRITE } from '../../registry/request-context';
import { ManualClock } from './clock';
import { EventsWriter } from './event-recorder';

/** An events store in memory: what was created and how each was updated. */
function memoryEvents() {
  const stored = new Map<string, KubeObject>();
  const store = {
    create: async (_ctx: unknown, obj: KubeObject) => {
      if (stored.has(obj.metadata.name!)) throw new Error(`events "${obj.metadata.name}" already exists`);
      stored.set(obj.metadata.name!, structuredClone(obj));
      return obj;
    },
    update: async (_ctx: unknown, name: string, fn: (current: KubeObject) => KubeObject) => {
      const object = fn(structuredClone(stored.get(name)!));
      stored.set(name, object);
      return { object, created: false };
    },
  };
  return { store: store as unknown as ObjectStore, stored };
}

const rs: KubeObject = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-1', namespace: 'ns', uid: 'u1', resourceVersion: '7' } };
/**
 * Until the writer's work, which takes turns on the event loop (turn-budget.ts), has all run:
 * rounds of a millisecond or more until twenty pass without a write (bounded), since a paced
 * turn's next waits 2 ms.
 */
async function settle(stored: Map<string, KubeObject>): Promise<void> {
  let quiet = 0;
  for (let round = 0; round < 2000 && quiet < 20; round++) {
    const before = JSON.stringify([...stored.values()]);
    await new Promise((resolve) => setTimeout(resolve, 1));
    quiet = JSON.stringify([...stored.values()]) === before ? quiet + 1 : 0;
  }
}

describe('EventsWriter', () => {
  it('writes an event as client-go does and counts its repeats on the same event', async () => {
    const { store, stored } = memoryEvents();
    const clock = new ManualClock(1_700_000_000_000);
    const writer = new EventsWriter(
      store,
      (ns) => systemContext({ namespace: ns }, SERVER_OWN_WRITE),
      'replicaset-controller',
      clock,
      () => undefined,
      'host-a',
    );
    writer.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-1-abc');
    await settle(stored);
    expect(stored.size).toBe(1);
    const [event] = stored.values();
    expect(event.metadata.name).toMatch(/^web-1\.[0-9a-f]+$/);
    expect(event).toMatchObject({
      metadata: { namespace: 'ns' },
      involvedObject: { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: 'ns', name: 'web-1', uid: 'u1', resourceVersion: '7' },
      reason: 'SuccessfulCreate',
      message: 'Created pod: web-1-abc',
      type: 'Normal',
      count: 1,
      source: { component: 'replicaset-controller', host: 'host-a' },
      reportingComponent: 'replicaset-controller',
      reportingInstance: 'host-a',
      firstTimestamp: '2023-11-14T22:13:20Z',
      lastTimestamp: '2023-11-14T22:13:20Z',
    });
    await clock.advance(5000);
    writer.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-1-abc');
    await settle(stored);
    expect(stored.size).toBe(1);
    expect([...stored.values()][0]).toMatchObject({ count: 2, firstTimestamp: '2023-11-14T22:13:20Z', lastTimestamp: '2023-11-14T22:13:25Z' });
  });

  it('combines more than ten similar events, and holds an object to a burst of 25', async () => {
    const { store, stored } = memoryEvents();
    const writer = new EventsWriter(
      store,
      (ns) => systemContext({ namespace: ns }, SERVER_OWN_WRITE),
      'c',
      new ManualClock(),
      () => undefined,
      'h',
    );
    for (let i = 0; i < 30; i++) writer.event(rs, 'Warning', 'FailedCreate', `Error creating: ${i}`);
    await settle(stored);
    const events = [...stored.values()];
    expect(events).toHaveLength(11);
    const combined = events.find((e) => String(e.message).startsWith('(combined from similar events): '));
    expect(combined).toMatchObject({ message: '(combined from similar events): Error creating: 24', count: 15 });
  });

  it('names the events of two writers about one object in one millisecond apart, and counts a repeat only on an event it made', async () => {
    const { store, stored } = memoryEvents();
    const clock = new ManualClock(1_700_000_000_000);
    const ctx = (ns: string) => systemContext({ namespace: ns }, SERVER_OWN_WRITE);
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u-n1' } };
    const controller = new EventsWriter(store, ctx, 'node-controller', clock, () => undefined, 'host-a');
    const kubelet = new EventsWriter(store, ctx, 'kubelet', clock, () => undefined, 'n1');
    controller.event(node, 'Normal', 'RegisteredNode', 'Node n1 event: Registered Node n1 in Controller');
    kubelet.eventAbout({ kind: 'Node', name: 'n1', uid: 'n1' }, 'Normal', 'Starting', 'Starting kubelet.');
    await settle(stored);
    expect([...stored.values()].map((e) => e.reason).sort()).toEqual(['RegisteredNode', 'Starting']);

    // A create the server refused (a name taken by someone else) is not counted on later.
    const taken = new Map<string, KubeObject>();
    const refusing = memoryEvents();
    const writer = new EventsWriter(refusing.store, ctx, 'kubelet', clock, () => undefined, 'n1');
    const original = refusing.store.create.bind(refusing.store);
    let refuse = true;
    (refusing.store as { create: unknown }).create = async (c: never, obj: KubeObject, o: never) => {
      if (refuse) {
        refuse = false;
        taken.set(obj.metadata.name!, obj);
        refusing.stored.set(obj.metadata.name!, { ...obj, reason: 'SomeoneElses', message: 'theirs' });
        throw new Error('already exists');
      }
      return original(c, obj, o);
    };
    writer.eventAbout({ kind: 'Node', name: 'n1', uid: 'n1' }, 'Normal', 'Starting', 'Starting kubelet.');
    await settle(refusing.stored);
    await clock.advance(1000);
    writer.eventAbout({ kind: 'Node', name: 'n1', uid: 'n1' }, 'Normal', 'Starting', 'Starting kubelet.');
    await settle(refusing.stored);
    const [theirs] = taken.keys();
    expect(refusing.stored.get(theirs)).toMatchObject({ reason: 'SomeoneElses', message: 'theirs', count: 1 });
    expect([...refusing.stored.values()].filter((e) => e.reason === 'Starting')).toEqual([expect.objectContaining({ message: 'Starting kubelet.', count: 1 })]);
  });
});
