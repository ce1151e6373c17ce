import { onAbort, type CallSignal } from '../../api/request-abort';
import { every, sleep, systemClock, type Clock } from '../../api/clock';
import type { KubeObject } from '../../api/types';
import type { EtcdStorage } from '../etcd/etcd-storage';
import { filterEvent } from '../event-filter';
import {
  everything,
  type DeleteOptions,
  type ListOptions,
  type ListResult,
  type Predicate,
  type ReadConsistency,
  type Storage,
  type StorageEvent,
  type TryUpdate,
  type UpdateOptions,
  type WatchItem,
  type WatchOptions,
  type WriteOptions,
} from '../interfaces';
import { decodeContinue } from '../continue-token';
import { parseRevision, zeroAsZero, type Revision } from '../revision';
import { FaultLog } from '../fault-log';
import { StorageError } from '../storage-error';
import { WatchChannel } from '../watch-channel';
import { EventWindow } from './event-window';
import { KeyOrder } from './key-order';
import { snapshotPage } from './snapshot-page';
import { TypeTally } from './type-tally';

export interface WatchCacheOptions {
  /** How long events are kept for watches that resume from a resourceVersion (--watch-cache-history). */
  historyMs: number;
  /** A bound on the events kept, whatever their age. */
  maxEvents: number;
  /** How often watchers are told the current revision (BOOKMARK when they allow it). */
  bookmarkIntervalMs: number;
  /** How long a read that asks for a newer revision than the cache has may wait for it. */
  freshnessTimeoutMs: number;
  /** Serve consistent reads from the cache once it has caught up with etcd (etcd >= 3.4.31 / 3.5.13). */
  consistentReads: boolean;
  /** Events a watcher may fall behind by before it is dropped. */
  watcherBuffer: number;
  /** Serve paged and exact lists from snapshots of the window (ListFromCacheSnapshot). */
  snapshots: boolean;
  /** How long a request waits for a (re)initializing cache before it is answered 429. */
  readyWaitMs: number;
  log: (message: string, err?: unknown) => void;
  /** The history's ages, bookmarks and every wait; the system's unless a test moves it by hand. */
  clock?: Clock;
}

interface Watcher {
  prefix: string;
  predicate: Predicate;
  channel: WatchChannel<WatchItem>;
  /** Events at or below this revision are not for this watcher (it asked to start later). */
  after: Revision;
}

interface Waiter {
  revision: Revision;
  resolve: () => void;
}

const RESTART_DELAY_MS = 1000;
const PROGRESS_POLL_MS = 50;

/**
 * One resource's cache: the current objects and a window of recent events, fed by a single etcd
 * watch, serving reads that allow it and every watch. Writes pass straight through to etcd; the
 * cache learns of them from the watch like everybody else.
 */
export class WatchCache implements Storage {
  private objects = new Map<string, KubeObject>();
  /** Keys whose values cannot be read (undecryptable or undecodable); reads of them go to etcd. */
  private unreadable = new Set<string>();
  private order = new KeyOrder();
  private types = new TypeTally();
  private revision = 0;
  private window: EventWindow;
  /** Snapshots before this revision are unknown: an unreadable value changed then, outside the window. */
  private snapshotFloor = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly waiters = new Set<Waiter>();
  private source: WatchChannel<WatchItem> | null = null;
  private ready!: Promise<void>;
  private markReady!: () => void;
  private isReady = false;
  /** When the cache last stopped being ready (or was created). */
  private notReadySince = 0;
  private stopped = false;
  private readonly listFaults: FaultLog;
  private readonly clock: Clock;
  private readonly stopBookmarks: () => void;
  private stopProgressPolls: (() => void) | null = null;
  /** Events received from etcd since start, for metrics. */
  eventsReceived = 0;
  /** Moves with every change to `objects` (changeMark). */
  private changes = 0;

  constructor(
    private readonly etcd: EtcdStorage,
    readonly root: string,
    private readonly opts: WatchCacheOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
    const now = (): number => this.clock.now();
    this.window = new EventWindow(0, 0, 0, now);
    this.listFaults = new FaultLog(opts.log, `watch cache for ${root} cannot list from etcd`, now);
    this.resetReady();
    this.stopBookmarks = every(this.clock, opts.bookmarkIntervalMs, () => this.bookmark());
  }

  private resetReady(): void {
    this.isReady = false;
    this.notReadySince = this.clock.now();
    this.ready = new Promise(
      (resolve) =>
        (this.markReady = () => {
          this.isReady = true;
          resolve();
        }),
    );
  }

  /** The cache holds a complete list and a live watch. */
  get synced(): boolean {
    return this.isReady;
  }

  /** Lists, then watches from the list's revision; resolves once the cache is filled. */
  async start(): Promise<void> {
    const list = await this.etcd.listReadable(this.root);
    const revision = Number(list.resourceVersion);
    this.objects = new Map(list.items.map((o) => [this.keyOf(o), o]));
    this.changes++;
    this.unreadable = new Set(list.unreadable);
    this.order.reset();
    this.types.reset(this.objects.values());
    this.revision = revision;
    this.window = new EventWindow(revision, this.opts.historyMs, this.opts.maxEvents, () => this.clock.now());
    this.snapshotFloor = revision;
    const source = await this.etcd.watch(this.root, {
      resourceVersion: String(revision),
      predicate: everything,
      onUnreadable: (key, deleted, rev) => this.noteUnreadable(key, deleted, rev),
    });
    this.source = source;
    this.markReady();
    void this.consume(source);
  }

  private async consume(source: WatchChannel<WatchItem>): Promise<void> {
    try {
      for await (const item of source) this.apply(item);
      if (this.stopped) return;
      throw new Error('etcd watch closed');
    } catch (err) {
      if (this.stopped) return;
      // Broken streams resume inside the KV; only a compacted revision (or a corrupt or
      // overflowing source) gets here, and then the cache re-lists as kube's reflector does.
      this.opts.log(`watch cache for ${this.root} lost its etcd watch (${err instanceof Error ? err.message : String(err)}); re-listing`);
      this.resetReady();
      this.terminateWatchers();
      this.clock.after(RESTART_DELAY_MS, () => this.restart());
    }
  }

  private restart(): void {
    if (this.stopped) return;
    this.start().then(
      () => this.listFaults.recovered(`watch cache for ${this.root} re-listed`),
      (err: unknown) => {
        this.listFaults.failed(err instanceof Error ? err.message : String(err));
        this.clock.after(RESTART_DELAY_MS, () => this.restart());
      },
    );
  }

  stop(): void {
    this.stopped = true;
    this.stopBookmarks();
    this.stopProgressPolls?.();
    this.source?.close();
    this.terminateWatchers();
  }

  private keyOf(obj: KubeObject): string {
    const { namespace, name } = obj.metadata;
    return namespace ? `${this.root}${namespace}/${name}` : `${this.root}${name}`;
  }

  /**
   * A value that cannot be read was written (or such a value was deleted). Like kube-apiserver's
   * cache re-initialising, watchers are ended so that they re-list, which then fails naming the
   * value until it is gone; reads that could include it are served by etcd meanwhile.
   */
  private noteUnreadable(key: string, deleted: boolean, revision: number): void {
    this.eventsReceived++;
    this.changes++;
    this.snapshotFloor = revision;
    const gone = this.objects.get(key);
    if (gone) {
      this.objects.delete(key);
      this.order.reset();
      this.types.remove(gone);
    }
    if (deleted) {
      this.unreadable.delete(key);
    } else {
      this.unreadable.add(key);
      this.terminateWatchers();
    }
    this.advance(revision);
  }

  private hasUnreadableUnder(prefix: string): boolean {
    for (const key of this.unreadable) if (key.startsWith(prefix)) return true;
    return false;
  }

  private apply(item: WatchItem): void {
    if (item.type === 'PROGRESS') {
      this.advance(item.revision);
      return;
    }
    if (item.type === 'INITIAL_EVENTS_END') return;
    this.eventsReceived++;
    this.changes++;
    const { key } = item;
    // Snapshots undo events with their previous state, which etcd omits once that state is compacted.
    const held = this.objects.get(key);
    if (item.type !== 'ADDED' && !item.previous) item.previous = held;
    this.unreadable.delete(key);
    if (held) this.types.remove(held);
    if (item.type === 'DELETED') {
      this.objects.delete(key);
      this.order.reset();
    } else {
      if (held) this.order.replaced(key, item.object);
      else this.order.reset();
      this.objects.set(key, item.object);
      this.types.add(item.object);
    }
    this.window.add(item);
    for (const w of this.watchers) {
      if (!key.startsWith(w.prefix) || item.revision <= w.after) continue;
      const filtered = filterEvent(item, w.predicate);
      if (filtered && !w.channel.push(filtered)) this.watchers.delete(w);
    }
    this.advance(item.revision);
  }

  private advance(revision: number): void {
    if (revision > this.revision) this.revision = revision;
    for (const w of this.waiters) {
      if (this.revision >= w.revision) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
    if (this.waiters.size === 0 && this.stopProgressPolls) {
      this.stopProgressPolls();
      this.stopProgressPolls = null;
    }
  }

  private bookmark(): void {
    this.window.evict();
    for (const w of this.watchers) {
      // cacheWatcher.process: nothing older than the revision a watch starts from, bookmarks included.
      if (w.after > this.revision) continue;
      if (!w.channel.push({ type: 'PROGRESS', revision: this.revision })) this.watchers.delete(w);
    }
  }

  private terminateWatchers(): void {
    for (const w of this.watchers) w.channel.close();
    this.watchers.clear();
  }

  /**
   * Waits for the cache to be ready, up to readyWaitMs or the caller's signal. Then, as kube's
   * cacher answers while it is not ready (ResilientWatchCacheInitialization), 429 with a
   * Retry-After that grows with the downtime (calculateRetryAfterForUnreadyCache).
   */
  private async waitReady(signal?: CallSignal): Promise<void> {
    if (this.isReady) return;
    let cancelTimer: (() => void) | undefined;
    let stopListening: (() => void) | undefined;
    const outcome = await Promise.race([
      this.ready.then(() => 'ready' as const),
      new Promise<'late'>((resolve) => (cancelTimer = this.clock.after(this.opts.readyWaitMs, () => resolve('late'), true))),
      new Promise<'aborted'>((resolve) => {
        if (signal) stopListening = onAbort(signal, () => resolve('aborted'));
      }),
    ]);
    cancelTimer?.();
    stopListening?.();
    if (outcome === 'ready') return;
    if (outcome === 'aborted') throw new StorageError('Timeout', 'request did not complete within requested timeout - context deadline exceeded');
    const err = new StorageError('Initializing', 'storage is (re)initializing');
    const downtimeSeconds = (this.clock.now() - this.notReadySince) / 1000;
    err.retryAfterSeconds = Math.trunc(Math.min(30, Math.max(1, Math.exp(0.06 * downtimeSeconds))));
    throw err;
  }

  /** Waits until the cache has seen `revision`, asking etcd for progress meanwhile; 504 after the timeout. */
  private async waitUntilFresh(revision: Revision, signal?: CallSignal): Promise<void> {
    await this.waitReady(signal);
    if (this.revision >= revision) return;
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        revision,
        resolve: () => {
          cancelTimer();
          resolve();
        },
      };
      const cancelTimer = this.clock.after(
        this.opts.freshnessTimeoutMs,
        () => {
          this.waiters.delete(waiter);
          reject(new StorageError('FutureRevision', `Too large resource version: ${revision}, current: ${this.revision}`));
        },
        true,
      );
      this.waiters.add(waiter);
      this.source?.requestProgress();
      this.stopProgressPolls ??= every(this.clock, PROGRESS_POLL_MS, () => this.source?.requestProgress());
    });
  }

  /** For a consistent read: catch up with etcd's current revision. */
  private async syncWithEtcd(signal?: CallSignal): Promise<void> {
    await this.waitUntilFresh(await this.etcd.currentRevision(signal), signal);
  }

  private keysUnder(prefix: string): string[] {
    const { keys, from, to } = this.order.range(this.objects, prefix);
    return keys.slice(from, to);
  }

  /** The current objects under the prefix that match, in key order. */
  private snapshot(prefix: string, predicate: Predicate): KubeObject[] {
    const { objects, from, to } = this.order.range(this.objects, prefix);
    if (predicate.empty) return objects.slice(from, to);
    const items: KubeObject[] = [];
    for (let i = from; i < to; i++) if (predicate.matches(objects[i])) items.push(objects[i]);
    return items;
  }

  /**
   * Whether a read that must see revision `revision` can be served from the cache. Without
   * trustworthy progress notifications (older etcd) a cache behind it defers to etcd rather than
   * risk a stale answer; either way a revision etcd itself has not reached is waited for, then 504.
   */
  private async cacheIsFreshFor(revision: Revision, signal?: CallSignal): Promise<boolean> {
    await this.waitReady(signal);
    if (this.revision >= revision) return true;
    if (this.opts.consistentReads) {
      await this.waitUntilFresh(revision, signal);
      return true;
    }
    await this.waitForEtcd(revision, signal);
    return false;
  }

  /** Polls etcd until it has reached `revision`; 504 Too large resource version after the timeout. */
  private async waitForEtcd(revision: Revision, signal?: CallSignal): Promise<number> {
    const deadline = this.clock.now() + this.opts.freshnessTimeoutMs;
    for (;;) {
      const current = await this.etcd.currentRevision(signal);
      if (current >= revision) return current;
      if (this.clock.now() >= deadline) throw new StorageError('FutureRevision', `Too large resource version: ${revision}, current: ${current}`);
      await sleep(this.clock, 100, signal);
    }
  }

  /** The cached object of a key if it is the value etcd holds at `modRevision`: a read from etcd that finds it unchanged shares it. */
  private cachedAt(key: string, modRevision: number): KubeObject | undefined {
    const obj = this.objects.get(key);
    return obj && !this.unreadable.has(key) && obj.metadata.resourceVersion === String(modRevision) ? obj : undefined;
  }

  async get(key: string, opts: ReadConsistency): Promise<KubeObject> {
    const latest: ReadConsistency = { resourceVersion: '', match: '', signal: opts.signal };
    if (opts.resourceVersion === '') {
      if (!this.opts.consistentReads) return this.etcd.get(key, latest, (rev) => this.cachedAt(key, rev));
      await this.syncWithEtcd(opts.signal);
    } else if (!(await this.cacheIsFreshFor(parseRevision(opts.resourceVersion), opts.signal))) {
      return this.etcd.get(key, latest, (rev) => this.cachedAt(key, rev));
    }
    if (this.unreadable.has(key)) return this.etcd.get(key, { resourceVersion: '', match: '' });
    const obj = this.objects.get(key);
    if (!obj) throw new StorageError('KeyNotFound', `key ${key} not found`, key);
    return obj;
  }

  /** Lists from the cache where the resourceVersion semantics allow it, from etcd otherwise. */
  async list(prefix: string, opts: ListOptions): Promise<ListResult> {
    const { resourceVersion: rv, match } = opts;
    if (this.hasUnreadableUnder(prefix)) return this.etcd.list(prefix, opts);
    const paged = !!opts.continue || match === 'Exact' || ((opts.limit ?? 0) > 0 && rv !== '0');
    if (paged) return (this.opts.snapshots ? await this.listFromSnapshot(prefix, opts) : null) ?? this.etcd.list(prefix, opts);
    if (rv === '') {
      if (!this.opts.consistentReads) return this.etcd.list(prefix, opts);
      await this.syncWithEtcd(opts.signal);
    } else if (!(await this.cacheIsFreshFor(parseRevision(rv), opts.signal))) {
      return this.etcd.list(prefix, { ...opts, resourceVersion: '', match: '' });
    }
    return { items: this.snapshot(prefix, opts.predicate), resourceVersion: String(this.revision), itemsType: this.types.only() };
  }

  /**
   * A chunk, or an exact list, from the cache: at the continue token's revision, at the exact
   * revision asked for, or (consistent and not-older-than reads) at the cache's own. Null when
   * the window does not reach that revision or the cache cannot vouch for it: etcd answers then.
   */
  private async listFromSnapshot(prefix: string, opts: ListOptions): Promise<ListResult | null> {
    const { resourceVersion: rv, match, predicate } = opts;
    const limit = opts.limit ?? 0;
    let revision: number;
    let start = prefix;
    if (opts.continue) {
      const token = decodeContinue(opts.continue);
      revision = token.revision;
      start = prefix + token.startKey;
    } else if (rv === '') {
      if (!this.opts.consistentReads) return null;
      await this.syncWithEtcd(opts.signal);
      revision = this.revision;
    } else if (match === 'NotOlderThan') {
      if (!(await this.cacheIsFreshFor(parseRevision(rv), opts.signal))) return null;
      revision = this.revision;
    } else {
      // Cacher.shouldDelegateExactRV: where consistent reads are served from the cache, a revision it
      // has not reached is waited for (504 after the timeout), not handed to etcd.
      const exact = parseRevision(rv);
      if (exact > this.revision) {
        if (!this.opts.consistentReads) return null;
        await this.waitUntilFresh(exact, opts.signal);
      }
      // Reached, so at most the cache's revision: a number.
      revision = Number(exact);
    }
    await this.waitReady(opts.signal);
    if (revision <= 0 || revision > this.revision) return null;
    // A revision etcd has compacted is not listed from the window either: etcd answers it (410).
    if (revision < this.revision && !(await this.etcd.readableAt(revision, opts.signal))) return null;
    if (revision < this.snapshotFloor) return null;
    const later = revision === this.revision ? [] : this.window.since(revision);
    if (!later) return null;
    return snapshotPage({ keys: this.keysUnder(prefix), current: (key) => this.objects.get(key), later }, { prefix, revision, start, limit, predicate });
  }

  /**
   * The state a watch starts from when it asks for one: the cache's when it is fresh enough (or any
   * state will do), else a consistent list from etcd, whose revision the live events then follow.
   */
  private async initialState(prefix: string, opts: WatchOptions): Promise<{ state: { key: string; object: KubeObject }[]; revision: number }> {
    const rv = opts.resourceVersion;
    const fromCache = (): { state: { key: string; object: KubeObject }[]; revision: number } => ({
      state: this.snapshot(prefix, opts.predicate).map((object) => ({ key: this.keyOf(object), object })),
      revision: this.revision,
    });
    if (rv === '0') return fromCache();
    if (this.opts.consistentReads) {
      if (rv === '') await this.syncWithEtcd(opts.signal);
      else await this.waitUntilFresh(parseRevision(rv), opts.signal);
      return fromCache();
    }
    if (rv !== '' && this.revision >= parseRevision(rv)) return fromCache();
    if (rv !== '') await this.waitForEtcd(parseRevision(rv), opts.signal);
    const list = await this.etcd.list(prefix, { resourceVersion: '', match: '', predicate: opts.predicate, signal: opts.signal });
    return { state: list.items.map((object) => ({ key: this.keyOf(object), object })), revision: Number(list.resourceVersion) };
  }

  /** Every watch is served here: initial state if asked, replayed history, then live events. */
  async watch(prefix: string, requested: WatchOptions): Promise<WatchChannel<WatchItem>> {
    await this.waitReady(requested.signal);
    const opts = zeroAsZero(requested);
    const rv = opts.resourceVersion;
    const initial = opts.sendInitialEvents ?? (rv === '' || rv === '0');
    let state: { key: string; object: KubeObject }[] = [];
    let after: number;
    if (initial) {
      // An initial state with unreadable values fails as the list of them does.
      if (this.hasUnreadableUnder(prefix)) await this.etcd.list(prefix, { resourceVersion: '', match: '', predicate: everything, signal: opts.signal });
      ({ state, revision: after } = await this.initialState(prefix, opts));
    } else if (rv === '') {
      after = this.opts.consistentReads ? (await this.syncWithEtcd(opts.signal), this.revision) : await this.etcd.currentRevision(opts.signal);
    } else {
      const from = rv === '0' ? this.revision : parseRevision(rv);
      // Past any revision kapi reaches: kube's cacheWatcher waits for it, sending nothing until then.
      if (typeof from === 'bigint') return this.register(prefix, opts.predicate, new WatchChannel<WatchItem>(this.opts.watcherBuffer), from);
      after = from;
      // The window may still hold history etcd has compacted (by another replica, or etcdctl):
      // such a watch is etcd's to answer, and it answers 410 as for any compacted revision.
      if (after < this.revision && after >= this.window.start && !(await this.etcd.readableAt(after + 1, opts.signal))) return this.etcd.watch(prefix, opts);
    }
    // From here to registration nothing awaits, so no event can slip between replay and live delivery.
    let replay: StorageEvent[] = [];
    if (after < this.revision) {
      const since = this.window.since(after);
      if (!since) {
        if (!initial) throw new StorageError('TooOld', `too old resource version: ${after} (${this.window.start})`);
      } else {
        replay = since;
      }
    }
    const channel = new WatchChannel<WatchItem>(state.length + replay.length + this.opts.watcherBuffer);
    for (const { key, object } of state) channel.push({ type: 'ADDED', key, object, revision: Number(object.metadata.resourceVersion) });
    if (opts.sendInitialEvents) channel.push({ type: 'INITIAL_EVENTS_END', revision: after });
    for (const event of replay) {
      if (!event.key.startsWith(prefix)) continue;
      const filtered = filterEvent(event, opts.predicate);
      if (filtered) channel.push(filtered);
    }
    return this.register(prefix, opts.predicate, channel, Math.max(after, this.revision));
  }

  private register(prefix: string, predicate: Predicate, channel: WatchChannel<WatchItem>, after: Revision): WatchChannel<WatchItem> {
    const watcher: Watcher = { prefix, predicate, channel, after };
    this.watchers.add(watcher);
    channel.onClose(() => this.watchers.delete(watcher));
    return channel;
  }

  /** etcd compacted its history up to `revision`; watches may no longer resume from before it. */
  compacted(revision: number): void {
    this.window.truncate(revision);
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  get objectCount(): number {
    return this.objects.size;
  }

  get eventsHeld(): number {
    return this.window.size;
  }

  changeMark(): number | undefined {
    return this.isReady && this.unreadable.size === 0 ? this.changes : undefined;
  }

  peek(key: string): KubeObject | null | undefined {
    if (!this.isReady || this.unreadable.has(key)) return undefined;
    return this.objects.get(key) ?? null;
  }

  peekUnder(prefix: string): KubeObject[] | undefined {
    if (!this.isReady || this.hasUnreadableUnder(prefix)) return undefined;
    return this.snapshot(prefix, everything);
  }

  get currentCacheRevision(): number {
    return this.revision;
  }

  create(key: string, obj: KubeObject, opts?: WriteOptions): Promise<KubeObject> {
    return this.etcd.create(key, obj, opts);
  }

  /** The cache's copy of the object saves etcd a read (CacheDelegator.GuaranteedUpdate's suggestion). */
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts?: UpdateOptions): Promise<KubeObject> {
    return this.etcd.guaranteedUpdate(key, tryUpdate, opts, this.unreadable.has(key) ? undefined : this.objects.get(key));
  }

  delete(key: string, opts?: DeleteOptions): Promise<KubeObject> {
    return this.etcd.delete(key, opts);
  }

  deleteUnreadable(key: string): Promise<void> {
    return this.etcd.deleteUnreadable(key);
  }

  async count(prefix: string): Promise<number> {
    await this.waitReady();
    const { from, to } = this.order.range(this.objects, prefix);
    return to - from;
  }

  currentRevision(): Promise<number> {
    return this.etcd.currentRevision();
  }
}
