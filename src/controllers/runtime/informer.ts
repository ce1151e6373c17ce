import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import { systemReadContext } from '../../registry/request-context';
import type { ObjectStore } from '../../registry/types';
import { everything, type Predicate, type WatchItem } from '../../storage/interfaces';
import type { WatchChannel } from '../../storage/watch-channel';
import { Backoff, REFLECTOR_BACKOFF, type BackoffOptions } from './backoff';
import { sleep, systemClock, type Clock } from './clock';
import { ObjectIndex, type IndexFunc } from './object-index';

export type ControllerLog = (message: string, err?: unknown) => void;

/** Where an informer reads: a list, then a watch of the changes after its resourceVersion. */
export interface ListWatch {
  /** At `resourceVersion` "0" any state the server holds will do (its watch cache); "" asks for the latest (a consistent read). */
  list(resourceVersion: '0' | ''): Promise<{ items: KubeObject[]; resourceVersion: string }>;
  watch(resourceVersion: string): Promise<WatchChannel<WatchItem>>;
}

/** A store's objects (in one namespace, or all of them with ''), optionally narrowed by a predicate. */
export function listWatchOf(store: ObjectStore, namespace = '', predicate: Predicate = everything): ListWatch {
  // An informer reads as the server itself, for as long as it runs.
  const ctx = systemReadContext(namespace);
  return {
    list: async (resourceVersion) => {
      const list = await store.list(ctx, { resourceVersion, match: '', predicate });
      return { items: list.items, resourceVersion: list.metadata.resourceVersion ?? '' };
    },
    watch: (resourceVersion) => store.watch(ctx, { resourceVersion, predicate }),
  };
}

export interface InformerHandlers {
  added?(obj: KubeObject): void;
  updated?(previous: KubeObject, obj: KubeObject): void;
  deleted?(obj: KubeObject): void;
}

export interface InformerOptions {
  /** Names the informer in logs and health reports, e.g. "namespaces". */
  name: string;
  log: ControllerLog;
  clock?: Clock;
  backoff?: BackoffOptions;
  /** Without a watch for this long, the informer reports a problem. */
  unhealthyAfterMs?: number;
  /** Indices by name (client-go's Indexers), kept before the handlers hear of a change; read with byIndex. */
  indexers?: Record<string, IndexFunc>;
  /**
   * The first list is a consistent read ("") rather than the server's cached state ("0"): once
   * synced, the informer holds every write that completed before it started (what client-go's
   * watch-list, a consistent stream of initial events, gives). Relists after "too old" are consistent either way.
   */
  consistentFirstList?: boolean;
}

/** Each object's key, made once: the informers of a resource share its objects (the watch cache's), and each keeps every key. */
const keys = new WeakMap<KubeObject, string>();

/** client-go's MetaNamespaceKeyFunc. */
export function objectKey(obj: KubeObject): string {
  let key = keys.get(obj);
  if (key === undefined) {
    const { namespace, name } = obj.metadata;
    key = namespace ? `${namespace}/${name}` : (name ?? '');
    keys.set(obj, key);
  }
  return key;
}

const UNHEALTHY_AFTER_MS = 30_000;

/** What a controller reads and runs of an informer, its own or its view of a shared one. */
export interface CachedInformer {
  readonly name: string;
  readonly synced: boolean;
  start(): void;
  stop(): void;
  waitForSync(): Promise<void>;
  list(): KubeObject[];
  get(key: string): KubeObject | undefined;
  byIndex(name: string, value: string): KubeObject[];
  problem(): string | null;
}

/**
 * client-go's reflector and informer in one: lists, then watches from the list's resourceVersion,
 * keeping the objects and telling the handlers what changed. A watch that fails or simply ends is
 * started again from the last resourceVersion seen, after a backoff; when that version is too old
 * (410 Gone) it lists again, and objects missing from the new list are reported deleted. Nothing
 * ends the loop but `stop()`.
 */
export class Informer implements CachedInformer {
  private readonly objects = new Map<string, KubeObject>();
  private readonly indices = new Map<string, ObjectIndex>();
  private readonly clock: Clock;
  private readonly backoff: Backoff;
  private abort: AbortController | null = null;
  private channel: WatchChannel<WatchItem> | null = null;
  private hasSynced = false;
  private syncWaiters: (() => void)[] = [];
  /** When the informer last had no live watch (null while it has one). */
  private disconnectedSince: number | null = null;
  private lastError = '';

  constructor(
    private readonly source: ListWatch,
    private readonly handlers: InformerHandlers,
    private readonly opts: InformerOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
    this.backoff = new Backoff(opts.backoff ?? REFLECTOR_BACKOFF, this.clock);
    for (const [name, indexFunc] of Object.entries(opts.indexers ?? {})) this.indices.set(name, new ObjectIndex(indexFunc));
  }

  get name(): string {
    return this.opts.name;
  }

  /** The first list has been handed to the handlers (client-go's HasSynced; stays true). */
  get synced(): boolean {
    return this.hasSynced;
  }

  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    this.disconnectedSince = this.clock.now();
    void this.run(abort.signal);
  }

  /** Resolves once the first list has been handed to the handlers. */
  waitForSync(): Promise<void> {
    if (this.hasSynced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  stop(): void {
    this.abort?.abort();
    this.abort = null;
    this.channel?.close();
    this.channel = null;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
  }

  list(): KubeObject[] {
    return [...this.objects.values()];
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** Adds an index under a name not yet taken, filing the objects already kept (client-go's AddIndexers). */
  addIndexer(name: string, indexFunc: IndexFunc): void {
    if (this.indices.has(name)) throw new Error(`informer ${this.opts.name} already has an index ${name}`);
    const index = new ObjectIndex(indexFunc);
    for (const [key, obj] of this.objects) index.update(key, undefined, obj);
    this.indices.set(name, index);
  }

  /** client-go's ByIndex: the objects the index named `name` (one of the options' indexers) files under `value`. */
  byIndex(name: string, value: string): KubeObject[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`informer ${this.opts.name} has no index ${name}`);
    return index.get(value);
  }

  /** Why the informer is not following its resource, or null while it is. */
  problem(): string | null {
    if (!this.abort) return null;
    if (this.disconnectedSince === null) return null;
    const ms = this.clock.now() - this.disconnectedSince;
    if (ms < (this.opts.unhealthyAfterMs ?? UNHEALTHY_AFTER_MS)) return null;
    return `informer ${this.opts.name} has had no watch for ${Math.round(ms / 1000)}s${this.lastError ? `: ${this.lastError}` : ''}`;
  }

  private async run(signal: AbortSignal): Promise<void> {
    let resourceVersion: string | null = null;
    // As client-go's reflector (relistResourceVersion): the first list takes the server's cached
    // state ("0"), so that many informers of one resource neither read etcd nor hold copies of
    // its objects, unless the informer must see every earlier write; a list after "too old" asks
    // for the latest, the cache may be as old.
    let listFrom: '0' | '' = this.opts.consistentFirstList ? '' : '0';
    while (!signal.aborted) {
      const listing = resourceVersion === null;
      try {
        if (resourceVersion === null) {
          const list = await this.source.list(listFrom);
          if (signal.aborted) return;
          this.replace(list.items);
          resourceVersion = list.resourceVersion;
        }
        const channel = await this.source.watch(resourceVersion);
        if (signal.aborted) {
          channel.close();
          return;
        }
        this.channel = channel;
        this.disconnectedSince = null;
        this.lastError = '';
        for await (const item of channel) {
          if (item.type !== 'INITIAL_EVENTS_END') resourceVersion = String(item.revision);
          if (item.type === 'ADDED' || item.type === 'MODIFIED' || item.type === 'DELETED') this.apply(item.type, item.object);
        }
        if (signal.aborted) return;
        this.disconnected('watch closed');
      } catch (err) {
        if (signal.aborted) return;
        const tooOld = isStatusError(err) && (err.code === 410 || err.status.reason === 'Expired' || err.status.reason === 'Gone');
        this.disconnected(tooOld ? 'resourceVersion too old; listing again' : err instanceof Error ? err.message : String(err));
        if (tooOld) {
          resourceVersion = null;
          listFrom = '';
          // The version is older than the watch can resume from: list again at once (the reflector's
          // relist on "too old"); straight after a list it is no longer news, and backs off as any failure.
          if (!listing) continue;
        }
        this.opts.log(`informer ${this.opts.name}: ${listing ? 'list' : 'watch'} failed; retrying`, err);
      } finally {
        this.channel = null;
      }
      await sleep(this.clock, this.backoff.next(), signal);
    }
  }

  private disconnected(reason: string): void {
    this.disconnectedSince ??= this.clock.now();
    this.lastError = reason;
  }

  /** A new list: what is new is added, what is there is updated, what is missing was deleted meanwhile. */
  private replace(items: KubeObject[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const previous = this.store(key, obj);
      this.notify(previous, obj);
    }
    for (const [key, obj] of this.objects) {
      if (seen.has(key)) continue;
      this.store(key, undefined);
      this.notify(obj, undefined);
    }
    if (!this.hasSynced) {
      this.hasSynced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    const key = objectKey(obj);
    if (type === 'DELETED') {
      this.store(key, undefined);
      this.notify(obj, undefined);
      return;
    }
    const previous = this.store(key, obj);
    this.notify(previous, obj);
  }

  /** Keeps `obj` under `key` (undefined: removes it), indices included; returns what was there. */
  private store(key: string, obj: KubeObject | undefined): KubeObject | undefined {
    const previous = this.objects.get(key);
    if (obj) this.objects.set(key, obj);
    else this.objects.delete(key);
    for (const index of this.indices.values()) index.update(key, previous, obj);
    return previous;
  }

  /**
   * Tells the handlers: `next` added (no `previous`), updated, or `previous` deleted (no `next`). A
   * handler that throws is logged; it never ends the informer. (No closure per event: every
   * informer of pods runs this for every pod change.)
   */
  private notify(previous: KubeObject | undefined, next: KubeObject | undefined): void {
    try {
      if (!next) this.handlers.deleted?.(previous!);
      else if (previous) this.handlers.updated?.(previous, next);
      else this.handlers.added?.(next);
    } catch (err) {
      this.opts.log(`informer ${this.opts.name}: handler failed`, err);
    }
  }
}
