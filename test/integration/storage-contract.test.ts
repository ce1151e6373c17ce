import { ManualClock } from '../../src/api/clock';
import type { KubeObject } from '../../src/api/types';
import { WatchCache, type WatchCacheOptions } from '../../src/storage/cache/watch-cache';
import { EtcdStorage } from '../../src/storage/etcd/etcd-storage';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { everything, type WatchItem } from '../../src/storage/interfaces';
import { isStorageError } from '../../src/storage/storage-error';
import { checkPreconditions } from '../../src/storage/preconditions';
import type { WatchChannel } from '../../src/storage/watch-channel';
import { startTestEtcd, type TestEtcd } from '../harness/etcd';
import { uniquePrefix } from '../harness/shared-etcd';
import { storageContract } from './storage-contract/suite';

/**
 * The storage contract on both storages kapi serves resources from, over a real etcd of this file's
 * own (the suite compacts etcd, which would reach every other file's history on the shared one).
 */
let etcd: TestEtcd;
let kv: Etcd3Kv;
let etcdStorage: EtcdStorage;
let cache: WatchCache;
const prefix = uniquePrefix('contract');

const cacheOptions = (overrides: Partial<WatchCacheOptions> = {}): WatchCacheOptions => ({
  historyMs: 5 * 60_000,
  maxEvents: 10_000,
  bookmarkIntervalMs: 500,
  freshnessTimeoutMs: 1000,
  // What kapi chooses on the test etcd (3.4.23, before reliable progress notifications).
  consistentReads: false,
  watcherBuffer: 1000,
  snapshots: true,
  readyWaitMs: 3000,
  log: () => undefined,
  ...overrides,
});

/** Waits (real time) until a cache has applied `revision`. */
async function caughtUp(c: WatchCache, revision: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (c.currentCacheRevision < revision) {
    if (Date.now() > deadline) throw new Error(`cache at ${c.currentCacheRevision}, not ${revision}, after 10 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  etcd = await startTestEtcd();
  kv = new Etcd3Kv({ endpoints: [etcd.endpoint] });
  etcdStorage = new EtcdStorage(kv, `${prefix}/`);
  cache = new WatchCache(etcdStorage, `${prefix}/cached/`, cacheOptions());
  await cache.start();
}, 60_000);

afterAll(async () => {
  cache?.stop();
  await kv?.close();
  await etcd?.stop();
});

storageContract('EtcdStorage', () => ({
  storage: etcdStorage,
  root: `${prefix}/direct/`,
  compact: (revision) => kv.compact(revision),
  settled: async () => undefined,
}));

storageContract('WatchCache over EtcdStorage', () => ({
  storage: cache,
  root: `${prefix}/cached/`,
  compact: (revision) => kv.compact(revision),
  settled: (revision) => caughtUp(cache, revision),
}));

/** The watch cache's timing, on a clock the test moves: no waiting out real intervals. */
describe('WatchCache on a ManualClock', () => {
  let clock: ManualClock;
  let timed: WatchCache;
  const root = `${prefix}/timed/`;
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

  beforeEach(async () => {
    clock = new ManualClock();
    timed = new WatchCache(etcdStorage, root, cacheOptions({ clock, historyMs: 75_000, bookmarkIntervalMs: 1000 }));
    await timed.start();
  });

  afterEach(() => timed.stop());

  test('--watch-cache-history: events older than the history leave the window, and a watch from before them is TooOld', async () => {
    const start = timed.currentCacheRevision;
    const a = await etcdStorage.create(`${root}a-${start}`, cm(`a-${start}`));
    await caughtUp(timed, Number(a.metadata.resourceVersion));

    // Within the history the window replays from the cache's start.
    const early = await timed.watch(root, { resourceVersion: String(start), predicate: everything });
    expect(await nextChange(early)).toMatchObject({ type: 'ADDED', revision: Number(a.metadata.resourceVersion) });
    early.close();

    await clock.advance(74_000);
    const b = await etcdStorage.create(`${root}b-${start}`, cm(`b-${start}`));
    await caughtUp(timed, Number(b.metadata.resourceVersion));
    // 76 s after the first event: it is evicted at the next bookmark tick, the second one stays.
    await clock.advance(2_000);
    const late = await timed.watch(root, { resourceVersion: String(start), predicate: everything }).catch((e: unknown) => e);
    expect(isStorageError(late, 'TooOld')).toBe(true);
    // As kube's getAllEventsSinceLocked: the oldest event held, less one, is the oldest resumable version.
    const oldest = Number(b.metadata.resourceVersion) - 1;
    expect((late as Error).message).toBe(`too old resource version: ${start} (${oldest})`);
    const beforeB = await timed.watch(root, { resourceVersion: String(oldest), predicate: everything });
    expect(await nextChange(beforeB)).toMatchObject({ type: 'ADDED', revision: Number(b.metadata.resourceVersion) });
    beforeB.close();
  });

  test('bookmarks: a quiet watcher is told the revision at each bookmark interval, not before', async () => {
    const w = await timed.watch(root, { resourceVersion: String(timed.currentCacheRevision), predicate: everything });
    try {
      await clock.advance(999);
      expect(w.size).toBe(0);
      await clock.advance(1);
      expect(w.size).toBe(1);
      expect((await w.next()).value).toEqual({ type: 'PROGRESS', revision: timed.currentCacheRevision });
      await clock.advance(3000);
      expect(w.size).toBe(3);
    } finally {
      w.close();
    }
  });
});

async function nextChange(w: WatchChannel<WatchItem>): Promise<WatchItem> {
  for (;;) {
    const { value, done } = await w.next();
    if (done) throw new Error('watch ended');
    if (value.type !== 'PROGRESS') return value;
  }
}

/** GuaranteedUpdate's cachedExistingObject: a copy that may be behind etcd stands in for the first read. */
describe('EtcdStorage.guaranteedUpdate from a cached copy', () => {
  const root = `${prefix}/suggested/`;
  let seq = 0;
  const cm = (data: Record<string, string>): { key: string; obj: KubeObject } => {
    const name = `s${seq++}`;
    return { key: `${root}${name}`, obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data } };
  };
  const bump = (cur: KubeObject | null): KubeObject => ({ ...cur!, data: { n: String(Number((cur!.data as { n: string }).n) + 1) } });

  test('a current copy saves the read; a stale one loses the guarded write and the update is computed again on etcd’s value', async () => {
    const { key, obj } = cm({ n: '0' });
    const v0 = await etcdStorage.create(key, obj);
    const seen: string[] = [];
    const fresh = await etcdStorage.guaranteedUpdate(key, async (cur) => (seen.push(cur!.metadata.resourceVersion!), bump(cur)), {}, structuredClone(v0));
    expect(seen).toEqual([v0.metadata.resourceVersion]);
    expect(fresh).toMatchObject({ data: { n: '1' } });

    seen.length = 0;
    const after = await etcdStorage.guaranteedUpdate(key, async (cur) => (seen.push(cur!.metadata.resourceVersion!), bump(cur)), {}, structuredClone(v0));
    expect(seen).toEqual([v0.metadata.resourceVersion, fresh.metadata.resourceVersion]);
    expect(after).toMatchObject({ data: { n: '2' } });
    expect(await etcdStorage.get(key, { resourceVersion: '', match: '' })).toMatchObject({
      data: { n: '2' },
      metadata: { resourceVersion: after.metadata.resourceVersion },
    });
  });

  test('an update that fails, or changes nothing, on a stale copy is decided on etcd’s value', async () => {
    const { key, obj } = cm({ n: '0' });
    const v0 = await etcdStorage.create(key, obj);
    const v1 = await etcdStorage.guaranteedUpdate(key, async (cur) => bump(cur));

    // A precondition on the newer version fails on the stale copy, then holds.
    const guarded = await etcdStorage.guaranteedUpdate(
      key,
      async (cur) => {
        checkPreconditions(key, cur!, { resourceVersion: v1.metadata.resourceVersion });
        return bump(cur);
      },
      {},
      structuredClone(v0),
    );
    expect(guarded).toMatchObject({ data: { n: '2' } });

    // Writing back what the stale copy holds is a change on etcd's value: it is written, not skipped.
    const back = await etcdStorage.guaranteedUpdate(key, async (cur) => ({ ...cur!, data: { n: '0' } }), {}, structuredClone(v0));
    expect(Number(back.metadata.resourceVersion)).toBeGreaterThan(Number(guarded.metadata.resourceVersion));
    expect(await etcdStorage.get(key, { resourceVersion: '', match: '' })).toMatchObject({ data: { n: '0' } });

    // Nothing to change on a current copy keeps the version.
    const same = await etcdStorage.guaranteedUpdate(key, async (cur) => cur!, {}, structuredClone(back));
    expect(same.metadata.resourceVersion).toBe(back.metadata.resourceVersion);
  });

  test('the cached copy, which readers share, is never written to', async () => {
    const { key, obj } = cm({ n: '0' });
    const v0 = await etcdStorage.create(key, obj);
    const shared = deepFreeze(structuredClone(v0));
    // A change and a no-op, each compared with the copy's own encoding.
    expect(await etcdStorage.guaranteedUpdate(key, async (cur) => bump(cur), {}, shared)).toMatchObject({ data: { n: '1' } });
    const current = deepFreeze(structuredClone(await etcdStorage.get(key, { resourceVersion: '', match: '' })));
    const same = await etcdStorage.guaranteedUpdate(key, async (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: {} } }), {}, current);
    expect(same.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
    expect(shared).toEqual(v0);
  });

  test('a dry run ignores the copy and computes on etcd’s value (DryRunnableStorage.GuaranteedUpdate), writing nothing', async () => {
    const { key, obj } = cm({ n: '0' });
    const v0 = await etcdStorage.create(key, obj);
    const v1 = await etcdStorage.guaranteedUpdate(key, async (cur) => bump(cur));
    const seen: string[] = [];
    const dry = await etcdStorage.guaranteedUpdate(
      key,
      async (cur) => (seen.push(cur!.metadata.resourceVersion!), bump(cur)),
      { dryRun: true },
      structuredClone(v0),
    );
    expect(seen).toEqual([v1.metadata.resourceVersion]);
    expect(dry).toMatchObject({ data: { n: '2' }, metadata: { resourceVersion: v1.metadata.resourceVersion } });
    // A precondition the stale copy would meet is refused, as etcd's value is newer.
    await expect(
      etcdStorage.guaranteedUpdate(
        key,
        async (cur) => {
          checkPreconditions(key, cur!, { resourceVersion: v0.metadata.resourceVersion });
          return bump(cur);
        },
        { dryRun: true },
        structuredClone(v0),
      ),
    ).rejects.toMatchObject({ code: 'Conflict' });
    expect(await etcdStorage.get(key, { resourceVersion: '', match: '' })).toMatchObject({
      data: { n: '1' },
      metadata: { resourceVersion: v1.metadata.resourceVersion },
    });
  });
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('WatchCache start over many objects', () => {
  test("lists them in pages at one revision (kube's storageWatchListPageSize, made 3 here): every object, none written after the first page", async () => {
    const root = `${prefix}/paged/`;
    const paged = new EtcdStorage(kv, `${prefix}/`, { cacheListPageSize: 3 });
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    for (let i = 0; i < 8; i++) await paged.create(`${root}cm-${i}`, cm(`cm-${i}`));
    // A write between two pages: the second page must still be read at the first page's revision.
    let pages = 0;
    const realRange = kv.range.bind(kv);
    const range = jest.spyOn(kv, 'range').mockImplementation(async (...args: Parameters<Etcd3Kv['range']>) => {
      const page = await realRange(...args);
      if (args[0].startsWith(root) && ++pages === 1) await etcdStorage.create(`${root}cm-late`, cm('cm-late'));
      return page;
    });
    const listed = await paged.listReadable(root).finally(() => range.mockRestore());
    expect(pages).toBe(3);
    expect(listed.items.map((o) => o.metadata.name)).toEqual(Array.from({ length: 8 }, (_, i) => `cm-${i}`));
    const late = await paged.get(`${root}cm-late`, { resourceVersion: '', match: '' });
    expect(Number(listed.resourceVersion)).toBeLessThan(Number(late.metadata.resourceVersion));
  });
});
