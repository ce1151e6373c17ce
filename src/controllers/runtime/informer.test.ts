import { resourceExpired } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { WatchItem } from '../../storage/interfaces';
import { WatchChannel } from '../../storage/watch-channel';
import { ManualClock } from './clock';
import { Informer, type ListWatch } from './informer';

const cm = (name: string, rv: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: String(rv) },
});

class FakeSource implements ListWatch {
  items: KubeObject[] = [];
  revision = 10;
  readonly watches: { from: string; channel: WatchChannel<WatchItem> }[] = [];
  watchError: Error | null = null;
  /** Fails the next watch only. */
  nextWatchError: Error | null = null;
  /** The resourceVersion of each list asked for. */
  readonly listedFrom: string[] = [];

  get lists(): number {
    return this.listedFrom.length;
  }

  async list(resourceVersion: '0' | ''): Promise<{ items: KubeObject[]; resourceVersion: string }> {
    this.listedFrom.push(resourceVersion);
    return { items: structuredClone(this.items), resourceVersion: String(this.revision) };
  }

  async watch(from: string): Promise<WatchChannel<WatchItem>> {
    if (this.watchError) throw this.watchError;
    const once = this.nextWatchError;
    this.nextWatchError = null;
    if (once) throw once;
    const channel = new WatchChannel<WatchItem>();
    this.watches.push({ from, channel });
    return channel;
  }

  get live(): WatchChannel<WatchItem> {
    return this.watches[this.watches.length - 1].channel;
  }
}

function harness() {
  const clock = new ManualClock();
  const source = new FakeSource();
  const seen: string[] = [];
  const informer = new Informer(
    source,
    {
      added: (o) => seen.push(`added ${o.metadata.name}`),
      updated: (_, o) => seen.push(`updated ${o.metadata.name}@${o.metadata.resourceVersion}`),
      deleted: (o) => seen.push(`deleted ${o.metadata.name}`),
    },
    { name: 'configmaps', log: () => undefined, clock },
  );
  return { clock, source, seen, informer };
}

describe('Informer', () => {
  test('lists, watches from the list, and watches again from the last event when the watch simply ends', async () => {
    const { clock, source, seen, informer } = harness();
    source.items = [cm('a', 5)];
    informer.start();
    await informer.waitForSync();
    await clock.advance(0);
    expect(seen).toEqual(['added a']);
    expect(source.watches.map((w) => w.from)).toEqual(['10']);
    source.live.push({ type: 'ADDED', key: 'k/b', object: cm('b', 11), revision: 11 });
    source.live.push({ type: 'MODIFIED', key: 'k/a', object: cm('a', 12), revision: 12 });
    await clock.advance(0);
    expect(seen).toEqual(['added a', 'added b', 'updated a@12']);
    source.live.close();
    await clock.advance(0);
    expect(informer.problem()).toBeNull();
    // The reflector's backoff: 800 ms, up to twice that with jitter.
    await clock.advance(1600);
    expect(source.watches.map((w) => w.from)).toEqual(['10', '12']);
    expect(source.lists).toBe(1);
    informer.stop();
  });

  test('lists again when the watch is too old (410), reporting what went missing as deleted', async () => {
    const { clock, source, seen, informer } = harness();
    source.items = [cm('a', 5), cm('b', 6)];
    informer.start();
    await informer.waitForSync();
    await clock.advance(0);
    source.nextWatchError = resourceExpired('too old resource version: 10 (20)');
    source.live.fail(new Error('etcd watch lost'));
    source.items = [cm('b', 21)];
    source.revision = 22;
    // One backoff after the lost watch; the 410 relists at once.
    await clock.advance(1600);
    expect(seen).toEqual(['added a', 'added b', 'updated b@21', 'deleted a']);
    // The first list takes the server's cached state, the one after 410 the latest (client-go's relistResourceVersion).
    expect(source.listedFrom).toEqual(['0', '']);
    expect(source.watches.map((w) => w.from)).toEqual(['10', '22']);
    expect(informer.list().map((o) => o.metadata.name)).toEqual(['b']);
    informer.stop();
  });

  test('reports a problem once it has had no watch for 30 s, and none once it watches again', async () => {
    const { clock, source, informer } = harness();
    informer.start();
    await informer.waitForSync();
    await clock.advance(0);
    source.watchError = new Error('etcdserver: no leader');
    source.live.close();
    await clock.advance(20_000);
    expect(informer.problem()).toBeNull();
    await clock.advance(15_000);
    expect(informer.problem()).toMatch(/^informer configmaps has had no watch for 3\ds: etcdserver: no leader$/);
    source.watchError = null;
    await clock.advance(61_000);
    expect(informer.problem()).toBeNull();
    informer.stop();
  });

  test('stop ends the loop for good', async () => {
    const { clock, source, informer } = harness();
    informer.start();
    await informer.waitForSync();
    await clock.advance(0);
    informer.stop();
    await clock.advance(120_000);
    expect(source.watches).toHaveLength(1);
    expect(source.watches[0].channel.isClosed).toBe(true);
  });
});
