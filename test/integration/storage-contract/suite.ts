import type { KubeObject } from '../../../src/api/types';
import { everything, type Predicate, type Storage, type WatchItem } from '../../../src/storage/interfaces';
import { checkPreconditions } from '../../../src/storage/preconditions';
import { isStorageError, type StorageErrorCode } from '../../../src/storage/storage-error';
import type { WatchChannel } from '../../../src/storage/watch-channel';

/** One storage under test, over its own key range of a real etcd. */
export interface ContractSubject {
  storage: Storage;
  /** The resource's key range: every key the suite writes starts with it. */
  root: string;
  /** Compacts etcd's history up to `revision`, as etcdctl or kapi's compactor does. */
  compact(revision: number): Promise<void>;
  /** Resolves once reads that accept any state ("0", count) see `revision`: at once for etcd, when caught up for a cache. */
  settled(revision: number): Promise<void>;
}

/**
 * The storage contract, as k8s.io/apiserver's pkg/storage/testing runs one suite on etcd3 and on the
 * cacher: whatever serves a resource, clients see the same answers. `subject` is called per test
 * group; each test works in a namespace of its own under the subject's root.
 */
export function storageContract(name: string, subject: () => ContractSubject): void {
  describe(`storage contract: ${name}`, () => {
    let storage: Storage;
    let root: string;
    let settled: (revision: number) => Promise<void>;
    let compact: (revision: number) => Promise<void>;
    let seq = 0;
    /** A fresh namespace-like key range for one test. */
    const space = (): string => `${root}ns${++seq}/`;

    beforeAll(() => {
      ({ storage, root, settled, compact } = subject());
    });

    const cm = (name: string, labels?: Record<string, string>, data?: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, uid: `uid-${name}-${seq}`, ...(labels ? { labels } : {}) },
      ...(data ? { data } : {}),
    });
    const rvOf = (obj: KubeObject): number => Number(obj.metadata.resourceVersion);
    const names = (items: KubeObject[]): string[] => items.map((o) => o.metadata.name!);

    describe('create', () => {
      test('stores the object and sets its resourceVersion; a second create of the key is KeyExists', async () => {
        const key = `${space()}a`;
        const created = await storage.create(key, cm('a'));
        expect(rvOf(created)).toBeGreaterThan(0);
        const read = await storage.get(key, { resourceVersion: '', match: '' });
        expect(read).toMatchObject({ metadata: { name: 'a', resourceVersion: created.metadata.resourceVersion } });
        await expectStorageError(storage.create(key, cm('a')), 'KeyExists');
      });

      test('a dry run checks the key but writes nothing', async () => {
        const key = `${space()}dry`;
        await storage.create(key, cm('dry'), { dryRun: true });
        await expectStorageError(storage.get(key, { resourceVersion: '', match: '' }), 'KeyNotFound');
      });
    });

    describe('get', () => {
      test('KeyNotFound for an absent key, at every resourceVersion semantics', async () => {
        const key = `${space()}absent`;
        const current = await storage.currentRevision();
        await expectStorageError(storage.get(key, { resourceVersion: '', match: '' }), 'KeyNotFound');
        await expectStorageError(storage.get(key, { resourceVersion: '0', match: '' }), 'KeyNotFound');
        await expectStorageError(storage.get(key, { resourceVersion: String(current), match: 'NotOlderThan' }), 'KeyNotFound');
      });

      test('"" reads the latest; a resourceVersion reads no older; "0" reads any state once seen', async () => {
        const key = `${space()}g`;
        const created = await storage.create(key, cm('g', undefined, { v: '1' }));
        const updated = await storage.guaranteedUpdate(key, async (cur) => ({ ...cur!, data: { v: '2' } }));
        expect(await storage.get(key, { resourceVersion: '', match: '' })).toMatchObject({
          data: { v: '2' },
          metadata: { resourceVersion: updated.metadata.resourceVersion },
        });
        const notOlder = await storage.get(key, { resourceVersion: created.metadata.resourceVersion!, match: 'NotOlderThan' });
        expect(rvOf(notOlder)).toBeGreaterThanOrEqual(rvOf(created));
        await settled(rvOf(updated));
        expect(await storage.get(key, { resourceVersion: '0', match: '' })).toMatchObject({ data: { v: '2' } });
      });

      test('a resourceVersion newer than etcd has is FutureRevision (504 ResourceVersionTooLarge)', async () => {
        const key = `${space()}future`;
        await storage.create(key, cm('future'));
        const ahead = (await storage.currentRevision()) + 1000;
        await expectStorageError(
          storage.get(key, { resourceVersion: String(ahead), match: 'NotOlderThan' }),
          'FutureRevision',
          /^Too large resource version: \d+, current: \d+$/,
        );
      });
    });

    describe('list', () => {
      test('pages of limit, continued at the first page revision, with remainingItemCount', async () => {
        const ns = space();
        for (const n of ['a', 'b', 'c', 'd', 'e']) await storage.create(`${ns}${n}`, cm(n));
        const first = await storage.list(ns, { resourceVersion: '', match: '', predicate: everything, limit: 2 });
        expect(names(first.items)).toEqual(['a', 'b']);
        expect(first.remainingItemCount).toBe(3);
        expect(first.continue).toEqual(expect.any(String));
        // Written after the first page: a consistent continuation does not see it.
        await storage.create(`${ns}bb`, cm('bb'));
        const second = await storage.list(ns, { resourceVersion: '', match: '', predicate: everything, limit: 2, continue: first.continue });
        expect(names(second.items)).toEqual(['c', 'd']);
        expect(second.resourceVersion).toBe(first.resourceVersion);
        const last = await storage.list(ns, { resourceVersion: '', match: '', predicate: everything, limit: 2, continue: second.continue });
        expect(names(last.items)).toEqual(['e']);
        expect(last.continue).toBeUndefined();
      });

      test('NotOlderThan sees at least that revision; Exact sees the state at it', async () => {
        const ns = space();
        const a = await storage.create(`${ns}a`, cm('a'));
        const b = await storage.create(`${ns}b`, cm('b'));
        const notOlder = await storage.list(ns, { resourceVersion: b.metadata.resourceVersion!, match: 'NotOlderThan', predicate: everything });
        expect(names(notOlder.items)).toEqual(['a', 'b']);
        expect(Number(notOlder.resourceVersion)).toBeGreaterThanOrEqual(rvOf(b));
        const exact = await storage.list(ns, { resourceVersion: a.metadata.resourceVersion!, match: 'Exact', predicate: everything });
        expect(names(exact.items)).toEqual(['a']);
        expect(exact.resourceVersion).toBe(a.metadata.resourceVersion);
        // A limit with a resourceVersion and no match is the legacy exact list.
        const legacy = await storage.list(ns, { resourceVersion: a.metadata.resourceVersion!, match: '', predicate: everything, limit: 10 });
        expect(names(legacy.items)).toEqual(['a']);
        await settled(rvOf(b));
        const any = await storage.list(ns, { resourceVersion: '0', match: '', predicate: everything });
        expect(names(any.items)).toEqual(['a', 'b']);
      });

      test('label and field predicates select; a paged selection fills its pages', async () => {
        const ns = space();
        for (let i = 0; i < 6; i++) await storage.create(`${ns}o${i}`, cm(`o${i}`, { parity: i % 2 === 0 ? 'even' : 'odd' }));
        const even = await storage.list(ns, { resourceVersion: '', match: '', predicate: labelIs('parity', 'even') });
        expect(names(even.items)).toEqual(['o0', 'o2', 'o4']);
        const byName = await storage.list(ns, { resourceVersion: '', match: '', predicate: nameIs('o3') });
        expect(names(byName.items)).toEqual(['o3']);
        const page = await storage.list(ns, { resourceVersion: '', match: '', predicate: labelIs('parity', 'odd'), limit: 2 });
        expect(names(page.items)).toEqual(['o1', 'o3']);
        // Counts are exact only without a selector.
        expect(page.remainingItemCount).toBeUndefined();
        const rest = await storage.list(ns, { resourceVersion: '', match: '', predicate: labelIs('parity', 'odd'), limit: 2, continue: page.continue });
        expect(names(rest.items)).toEqual(['o5']);
      });

      test('itemsType, where the storage gives it, is the apiVersion and kind of every item', async () => {
        const ns = space();
        await storage.create(`${ns}a`, cm('a'));
        const other = await storage.create(`${ns}b`, { ...cm('b'), apiVersion: 'example.com/v9' });
        await settled(rvOf(other));
        const mixed = await storage.list(ns, { resourceVersion: '0', match: '', predicate: everything });
        expect(names(mixed.items)).toEqual(['a', 'b']);
        expect(mixed.itemsType).toBeUndefined();
        const gone = await storage.delete(`${ns}b`);
        await settled(rvOf(gone));
        const one = await storage.list(ns, { resourceVersion: '0', match: '', predicate: everything });
        expect(names(one.items)).toEqual(['a']);
        for (const { apiVersion, kind } of one.items) expect(one.itemsType ?? { apiVersion, kind }).toEqual({ apiVersion, kind });
      });

      test('a resourceVersion newer than etcd has is FutureRevision', async () => {
        const ns = space();
        await storage.create(`${ns}x`, cm('x'));
        const ahead = String((await storage.currentRevision()) + 1000);
        await expectStorageError(storage.list(ns, { resourceVersion: ahead, match: 'NotOlderThan', predicate: everything }), 'FutureRevision');
        await expectStorageError(storage.list(ns, { resourceVersion: ahead, match: '', predicate: everything }), 'FutureRevision');
      });

      test('count counts the keys under a prefix', async () => {
        const ns = space();
        for (const n of ['a', 'b', 'c']) await storage.create(`${ns}${n}`, cm(n));
        const gone = await storage.delete(`${ns}b`);
        await settled(rvOf(gone));
        expect(await storage.count(ns)).toBe(2);
      });
    });

    describe('guaranteedUpdate', () => {
      test('recomputes from the current state when the object moved under it', async () => {
        const key = `${space()}u`;
        await storage.create(key, cm('u', undefined, { n: '0' }));
        let calls = 0;
        const result = await storage.guaranteedUpdate(key, async (cur) => {
          calls++;
          // The first computation races a writer that lands first.
          if (calls === 1) await storage.guaranteedUpdate(key, async (c) => ({ ...c!, data: { n: String(counter(c!) + 1) } }));
          return { ...cur!, data: { n: String(counter(cur!) + 10) } };
        });
        expect(calls).toBe(2);
        expect(result.data).toEqual({ n: '11' });
        expect(await storage.get(key, { resourceVersion: '', match: '' })).toMatchObject({
          data: { n: '11' },
          metadata: { resourceVersion: result.metadata.resourceVersion },
        });
      });

      test('preconditions checked on the current state: a stale resourceVersion or another uid is a Conflict', async () => {
        const key = `${space()}p`;
        const created = await storage.create(key, cm('p'));
        await storage.guaranteedUpdate(key, async (cur) => ({ ...cur!, data: { moved: 'yes' } }));
        const guarded = (pre: { uid?: string; resourceVersion?: string }): Promise<KubeObject> =>
          storage.guaranteedUpdate(key, async (cur) => {
            checkPreconditions(key, cur!, pre);
            return { ...cur!, data: { won: 'yes' } };
          });
        await expectStorageError(
          guarded({ resourceVersion: created.metadata.resourceVersion }),
          'Conflict',
          /^Precondition failed: ResourceVersion in precondition/,
        );
        await expectStorageError(guarded({ uid: 'someone-else' }), 'Conflict', /^Precondition failed: UID in precondition: someone-else/);
        expect(await storage.get(key, { resourceVersion: '', match: '' })).toMatchObject({ data: { moved: 'yes' } });
      });

      test('KeyNotFound for an absent key; with ignoreNotFound the update creates it', async () => {
        const key = `${space()}n`;
        await expectStorageError(
          storage.guaranteedUpdate(key, async (cur) => cur!),
          'KeyNotFound',
        );
        const made = await storage.guaranteedUpdate(
          key,
          async (cur) => {
            expect(cur).toBeNull();
            return cm('n');
          },
          { ignoreNotFound: true },
        );
        expect(rvOf(made)).toBeGreaterThan(0);
      });

      test('an update that changes nothing writes nothing and keeps the resourceVersion', async () => {
        const key = `${space()}same`;
        const created = await storage.create(key, cm('same'));
        const kept = await storage.guaranteedUpdate(key, async (cur) => cur!);
        expect(kept.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      });
    });

    describe('delete', () => {
      test('returns the last state at the deletion revision; KeyNotFound afterwards', async () => {
        const key = `${space()}d`;
        const created = await storage.create(key, cm('d'));
        const gone = await storage.delete(key);
        expect(gone.metadata.name).toBe('d');
        expect(rvOf(gone)).toBeGreaterThan(rvOf(created));
        await expectStorageError(storage.get(key, { resourceVersion: '', match: '' }), 'KeyNotFound');
        await expectStorageError(storage.delete(key), 'KeyNotFound');
      });

      test('preconditions and validateDeletion refuse; the object stays', async () => {
        const key = `${space()}keep`;
        const created = await storage.create(key, cm('keep'));
        await expectStorageError(storage.delete(key, { preconditions: { uid: 'another' } }), 'Conflict', /^Precondition failed: UID/);
        await expectStorageError(storage.delete(key, { preconditions: { resourceVersion: '1' } }), 'Conflict', /^Precondition failed: ResourceVersion/);
        await expect(
          storage.delete(key, {
            validateDeletion: () => {
              throw new Error('refused');
            },
          }),
        ).rejects.toThrow('refused');
        const ok = await storage.delete(key, { preconditions: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion } });
        expect(ok.metadata.name).toBe('keep');
      });
    });

    describe('watch', () => {
      test('from a revision: every later change of the range, in order, with its revision', async () => {
        const ns = space();
        const start = await storage.currentRevision();
        const w = await storage.watch(ns, { resourceVersion: String(start), predicate: everything });
        try {
          const a = await storage.create(`${ns}a`, cm('a'));
          await storage.create(`${space()}elsewhere`, cm('elsewhere'));
          const a2 = await storage.guaranteedUpdate(`${ns}a`, async (cur) => ({ ...cur!, data: { v: '2' } }));
          const gone = await storage.delete(`${ns}a`);
          const events = await take(w, 3);
          expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
          expect(events.map((e) => ('revision' in e ? e.revision : 0))).toEqual([rvOf(a), rvOf(a2), rvOf(gone)]);
          expect(events.map((e) => (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED' ? e.object.metadata.resourceVersion : ''))).toEqual([
            a.metadata.resourceVersion,
            a2.metadata.resourceVersion,
            gone.metadata.resourceVersion,
          ]);
        } finally {
          w.close();
        }
      });

      test('replays what happened after an older revision before live changes', async () => {
        const ns = space();
        const a = await storage.create(`${ns}a`, cm('a'));
        const b = await storage.create(`${ns}b`, cm('b'));
        await settled(rvOf(b));
        const w = await storage.watch(ns, { resourceVersion: a.metadata.resourceVersion!, predicate: everything });
        try {
          const c = await storage.create(`${ns}c`, cm('c'));
          const events = await take(w, 2);
          expect(events.map((e) => [e.type, 'object' in e ? e.object.metadata.name : '', 'revision' in e ? e.revision : 0])).toEqual([
            ['ADDED', 'b', rvOf(b)],
            ['ADDED', 'c', rvOf(c)],
          ]);
        } finally {
          w.close();
        }
      });

      test('"" and "0" start with the current objects as ADDED; sendInitialEvents ends them with INITIAL_EVENTS_END', async () => {
        const ns = space();
        await storage.create(`${ns}a`, cm('a'));
        const b = await storage.create(`${ns}b`, cm('b'));
        await settled(rvOf(b));
        for (const resourceVersion of ['', '0']) {
          const w = await storage.watch(ns, { resourceVersion, predicate: everything });
          try {
            const events = await take(w, 2);
            expect(events.map((e) => [e.type, 'object' in e ? e.object.metadata.name : ''])).toEqual([
              ['ADDED', 'a'],
              ['ADDED', 'b'],
            ]);
          } finally {
            w.close();
          }
        }
        const streamed = await storage.watch(ns, { resourceVersion: b.metadata.resourceVersion!, predicate: everything, sendInitialEvents: true });
        try {
          const events = await take(streamed, 3);
          expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'INITIAL_EVENTS_END']);
          expect(events[2].revision).toBeGreaterThanOrEqual(rvOf(b));
        } finally {
          streamed.close();
        }
      });

      test('a filtered watch: an object entering the selection is ADDED, one leaving it DELETED, others unseen', async () => {
        const ns = space();
        const start = await storage.currentRevision();
        const w = await storage.watch(ns, { resourceVersion: String(start), predicate: labelIs('team', 'a') });
        try {
          await storage.create(`${ns}x`, cm('x', { team: 'b' }));
          await storage.guaranteedUpdate(`${ns}x`, async (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { team: 'a' } } }));
          await storage.guaranteedUpdate(`${ns}x`, async (cur) => ({ ...cur!, data: { still: 'a' } }));
          const left = await storage.guaranteedUpdate(`${ns}x`, async (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { team: 'c' } } }));
          const events = await take(w, 3);
          expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
          const deleted = events[2] as { object: KubeObject };
          expect(deleted.object.metadata.labels).toEqual({ team: 'a' });
          expect(deleted.object.metadata.resourceVersion).toBe(left.metadata.resourceVersion);
        } finally {
          w.close();
        }
      });

      test('a watch with nothing to report tells the revision it has reached (PROGRESS, a bookmark)', async () => {
        const ns = space();
        const start = await storage.currentRevision();
        const w = await storage.watch(ns, { resourceVersion: String(start), predicate: everything });
        try {
          w.requestProgress();
          const [progress] = await take(w, 1, { progress: true, timeoutMs: 15_000 });
          expect(progress.type).toBe('PROGRESS');
          expect(progress.revision).toBeGreaterThanOrEqual(start);
        } finally {
          w.close();
        }
      });

      test('a resourceVersion newer than etcd has waits, then FutureRevision, for a watch with initial events', async () => {
        const ns = space();
        const ahead = String((await storage.currentRevision()) + 1000);
        const outcome = await storage.watch(ns, { resourceVersion: ahead, predicate: everything, sendInitialEvents: true }).then(
          (w) => take(w, 1).finally(() => w.close()),
          (err: unknown) => err,
        );
        expect(isStorageError(outcome, 'FutureRevision')).toBe(true);
      });
    });

    describe('compaction', () => {
      test('after etcd compacted past a revision: watches and exact lists from it are TooOld; later ones are served', async () => {
        const ns = space();
        const a = await storage.create(`${ns}a`, cm('a'));
        await storage.create(`${ns}b`, cm('b'));
        const page = await storage.list(ns, { resourceVersion: '', match: '', predicate: everything, limit: 1 });
        const c = await storage.create(`${ns}c`, cm('c'));
        await settled(rvOf(c));
        const compactedAt = await storage.currentRevision();
        await compact(compactedAt);

        await expectWatchExpired(storage.watch(ns, { resourceVersion: a.metadata.resourceVersion!, predicate: everything }));
        await expectStorageError(
          storage.list(ns, { resourceVersion: a.metadata.resourceVersion!, match: 'Exact', predicate: everything }),
          'TooOld',
          /^The resourceVersion for the provided list is too old\.$/,
        );
        const expired = await storage
          .list(ns, { resourceVersion: '', match: '', predicate: everything, limit: 1, continue: page.continue })
          .catch((e: unknown) => e);
        expect(isStorageError(expired, 'TooOld')).toBe(true);
        // The inconsistent continuation goes on at the latest revision.
        const resumed = await storage.list(ns, {
          resourceVersion: '',
          match: '',
          predicate: everything,
          limit: 10,
          continue: (expired as { continueToken: string }).continueToken,
        });
        expect(names(resumed.items)).toEqual(['b', 'c']);

        const w = await storage.watch(ns, { resourceVersion: String(compactedAt), predicate: everything });
        try {
          const d = await storage.create(`${ns}d`, cm('d'));
          const [added] = await take(w, 1);
          expect(added).toMatchObject({ type: 'ADDED', revision: rvOf(d) });
        } finally {
          w.close();
        }
      });
    });
  });
}

function counter(obj: KubeObject): number {
  return Number((obj.data as Record<string, string>).n);
}

function labelIs(key: string, value: string): Predicate {
  return { empty: false, matches: (obj) => obj.metadata.labels?.[key] === value };
}

function nameIs(name: string): Predicate {
  return { empty: false, matches: (obj) => obj.metadata.name === name };
}

async function expectStorageError(p: Promise<unknown>, code: StorageErrorCode, message?: RegExp): Promise<void> {
  const err = await p.then(
    (v) => new Error(`expected StorageError ${code}, got ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );
  if (!isStorageError(err, code)) throw err instanceof Error ? err : new Error(String(err));
  if (message) expect(err.message).toMatch(message);
}

/** A watch of a compacted revision is refused at once or ends with TooOld before any event. */
async function expectWatchExpired(p: Promise<WatchChannel<WatchItem>>): Promise<void> {
  const outcome = await p.then(
    async (w) => {
      try {
        return new Error(`expected TooOld, got ${JSON.stringify(await take(w, 1))}`);
      } catch (err) {
        return err;
      } finally {
        w.close();
      }
    },
    (err: unknown) => err,
  );
  if (!isStorageError(outcome, 'TooOld')) throw outcome instanceof Error ? outcome : new Error(String(outcome));
}

/** The next `n` items of a watch; progress notes are skipped unless asked for. */
async function take(w: WatchChannel<WatchItem>, n: number, opts: { progress?: boolean; timeoutMs?: number } = {}): Promise<WatchItem[]> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const out: WatchItem[] = [];
  const deadline = Date.now() + timeoutMs;
  const iterator = w[Symbol.asyncIterator]();
  while (out.length < n) {
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      iterator.next(),
      new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now())))),
    ]).finally(() => clearTimeout(timer));
    if (next === 'late') throw new Error(`watch: ${out.length} of ${n} items in ${timeoutMs} ms: ${JSON.stringify(out)}`);
    if (next.done) throw new Error(`watch ended after ${out.length} of ${n} items`);
    if (next.value.type === 'PROGRESS' && !opts.progress) continue;
    out.push(next.value);
  }
  return out;
}
