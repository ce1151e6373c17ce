import type { KubeObject } from '../../api/types';
import { FakeCluster } from '../../../test/harness/fake-object-store';
import { SERVER_OWN_WRITE, systemContext } from '../../registry/request-context';
import { ManualClock } from './clock';
import type { InformerHandlers } from './informer';
import { SharedInformers } from './shared-informers';

const ctx = systemContext({ namespace: 'ns' }, SERVER_OWN_WRITE);
const cm = (name: string, data = '1'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { v: data } });

function harness() {
  const cluster = new FakeCluster();
  const clock = new ManualClock();
  const store = cluster.store('', 'v1', 'configmaps');
  const lists = jest.spyOn(store, 'list');
  const watches = jest.spyOn(store, 'watch');
  const logged: unknown[] = [];
  const informers = new SharedInformers((message, err) => logged.push(err ?? message), clock);
  const seen: string[] = [];
  /** Handlers that write "<who> <event> <name>" to `seen`. */
  const recording = (who: string): InformerHandlers => ({
    added: (o) => seen.push(`${who} added ${o.metadata.name}`),
    updated: (_, o) => seen.push(`${who} updated ${o.metadata.name}`),
    deleted: (o) => seen.push(`${who} deleted ${o.metadata.name}`),
  });
  return { clock, store, lists, watches, logged, informers, seen, recording };
}

/** Lets the informers' list and watch run. */
const flush = (clock: ManualClock) => clock.advance(0);

describe('SharedInformers', () => {
  test('consumers of one resource share one list, one watch and one map, each told of changes in the order they started', async () => {
    const { clock, store, lists, watches, informers, seen, recording } = harness();
    await store.create(ctx, cm('a'), { dryRun: false });
    const first = informers.informer(store, recording('first'), { name: 'first' });
    const second = informers.informer(store, recording('second'), { name: 'second' });
    first.start();
    second.start();
    await Promise.all([first.waitForSync(), second.waitForSync()]);
    await store.create(ctx, cm('b'), { dryRun: false });
    await flush(clock);
    expect(lists).toHaveBeenCalledTimes(1);
    expect(watches).toHaveBeenCalledTimes(1);
    expect(seen).toEqual(['first added a', 'second added a', 'first added b', 'second added b']);
    expect(first.get('ns/b')).toBe(second.get('ns/b'));
    expect(first.synced && second.synced).toBe(true);
  });

  test('a consumer that starts late is first told of what is already there, as additions', async () => {
    const { clock, store, informers, seen, recording } = harness();
    await store.create(ctx, cm('a'), { dryRun: false });
    const early = informers.informer(store, {}, { name: 'early' });
    early.start();
    await early.waitForSync();
    const late = informers.informer(store, recording('late'), { name: 'late' });
    late.start();
    expect(late.synced).toBe(true);
    expect(seen).toEqual(['late added a']);
    await store.update(ctx, 'a', cm('a', '2'), { dryRun: false });
    await flush(clock);
    expect(seen).toEqual(['late added a', 'late updated a']);
  });

  test('a filtered or namespaced informer is its own shared entry', async () => {
    const { store, lists, informers } = harness();
    await store.create(ctx, cm('a'), { dryRun: false });
    await store.create(ctx, cm('b'), { dryRun: false });
    const onlyA = { description: 'metadata.name=a', predicate: { matches: (o: KubeObject) => o.metadata.name === 'a', empty: false } };
    const views = [
      informers.informer(store, {}, { name: 'all' }),
      informers.informer(store, {}, { name: 'a', filter: onlyA }),
      informers.informer(store, {}, { name: 'also a', filter: onlyA }),
      informers.informer(store, {}, { name: 'other namespace', namespace: 'other' }),
    ];
    for (const view of views) view.start();
    await Promise.all(views.map((v) => v.waitForSync()));
    expect(lists).toHaveBeenCalledTimes(3);
    expect(views.map((v) => v.list().map((o) => o.metadata.name))).toEqual([['a', 'b'], ['a'], ['a'], []]);
  });

  test('informers are shared per store: another store of the same resource (a custom resource served anew) has its own', async () => {
    const { store, informers } = harness();
    const replaced = new FakeCluster().store('', 'v1', 'configmaps');
    await store.create(ctx, cm('old'), { dryRun: false });
    await replaced.create(ctx, cm('new'), { dryRun: false });
    const views = [informers.informer(store, {}, { name: 'old' }), informers.informer(replaced, {}, { name: 'new' })];
    for (const view of views) view.start();
    await Promise.all(views.map((v) => v.waitForSync()));
    expect(views.map((v) => v.list().map((o) => o.metadata.name))).toEqual([['old'], ['new']]);
  });

  test('a consumer that must see every earlier write starts the shared informer with a consistent list; it cannot join one already running', async () => {
    const { store, lists, informers } = harness();
    await store.create(ctx, cm('a'), { dryRun: false });
    const policy = informers.informer(store, {}, { name: 'policy', consistentFirstList: true });
    policy.start();
    await policy.waitForSync();
    const other = informers.informer(store, {}, { name: 'other' });
    other.start();
    expect(lists).toHaveBeenCalledTimes(1);
    expect(lists.mock.calls[0][1]).toMatchObject({ resourceVersion: '' });
    expect(other.list().map((o) => o.metadata.name)).toEqual(['a']);
    const late = informers.informer(store, {}, { name: 'late', consistentFirstList: true });
    expect(() => late.start()).toThrow('informer late: the shared informer of configmaps is already running; its first list cannot be consistent');
    const cached = harness();
    const view = cached.informers.informer(cached.store, {}, { name: 'cached' });
    view.start();
    await view.waitForSync();
    expect(cached.lists.mock.calls[0][1]).toMatchObject({ resourceVersion: '0' });
  });

  test('indexers join the shared index set, also once objects are kept; one name with two functions is an error', async () => {
    const { store, informers } = harness();
    await store.create(ctx, cm('a', 'x'), { dryRun: false });
    const byData = (o: KubeObject): string[] => [String((o.data as { v: string }).v)];
    const first = informers.informer(store, {}, { name: 'first' });
    first.start();
    await first.waitForSync();
    const second = informers.informer(store, {}, { name: 'second', indexers: { byData } });
    second.start();
    expect(second.byIndex('byData', 'x').map((o) => o.metadata.name)).toEqual(['a']);
    expect(first.byIndex('byData', 'x').map((o) => o.metadata.name)).toEqual(['a']);
    expect(() => informers.informer(store, {}, { name: 'third', indexers: { byData: (o) => byData(o) } })).toThrow(
      'informer third: index byData of configmaps is already registered with another function',
    );
    expect(() => informers.informer(store, {}, { name: 'fourth', indexers: { byData } })).not.toThrow();
  });

  test('the watch stops with the last consumer; a consumer started again lists afresh and hears of everything again', async () => {
    const { clock, store, lists, watches, informers, seen, recording } = harness();
    await store.create(ctx, cm('a'), { dryRun: false });
    const one = informers.informer(store, recording('one'), { name: 'one' });
    const two = informers.informer(store, {}, { name: 'two' });
    one.start();
    two.start();
    await one.waitForSync();
    await flush(clock);
    const channel = await watches.mock.results[0].value;
    one.stop();
    expect(channel.isClosed).toBe(false);
    two.stop();
    expect(channel.isClosed).toBe(true);
    expect(one.list()).toEqual([]);
    one.start();
    await one.waitForSync();
    expect(lists).toHaveBeenCalledTimes(2);
    expect(seen).toEqual(['one added a', 'one added a']);
  });

  test('each consumer resyncs on its own period; a throwing handler is logged and the others are still told', async () => {
    const { clock, store, logged, informers, seen, recording } = harness();
    await store.create(ctx, cm('a'), { dryRun: false });
    const failing = informers.informer(
      store,
      {
        added: () => {
          throw new Error('boom');
        },
      },
      { name: 'failing' },
    );
    const resyncing = informers.informer(store, recording('resyncing'), { name: 'resyncing', resyncMs: 1000 });
    failing.start();
    resyncing.start();
    await resyncing.waitForSync();
    await clock.advance(2500);
    expect(seen).toEqual(['resyncing added a', 'resyncing updated a', 'resyncing updated a']);
    expect(logged).toEqual([new Error('boom')]);
  });

  test('once stopped, no consumer starts a watch again', async () => {
    const { clock, store, watches, informers } = harness();
    const view = informers.informer(store, {}, { name: 'view' });
    view.start();
    await view.waitForSync();
    await flush(clock);
    informers.stop();
    view.stop();
    view.start();
    await view.waitForSync();
    expect(view.synced).toBe(false);
    expect(watches).toHaveBeenCalledTimes(1);
  });
});
