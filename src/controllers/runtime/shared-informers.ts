import type { KubeObject } from '../../api/types';
import type { ObjectStore } from '../../registry/types';
import { everything, type Predicate } from '../../storage/interfaces';
import type { Clock } from './clock';
import { Informer, listWatchOf, type CachedInformer, type ControllerLog, type InformerHandlers } from './informer';
import type { IndexFunc } from './object-index';

/** A narrower watch than the whole resource; informers whose filters describe alike share one. */
export interface InformerFilter {
  /** Says what the predicate keeps, e.g. "spec.nodeName in simulated nodes"; it keys the shared informer. */
  description: string;
  predicate: Predicate;
}

export interface SharedInformerOptions {
  /** Names this consumer's view in logs, e.g. "pods". */
  name: string;
  /** One namespace's objects; '' (the default) for all. */
  namespace?: string;
  filter?: InformerFilter;
  /** Indices this consumer reads with byIndex, added to the shared informer's. */
  indexers?: Record<string, IndexFunc>;
  /** This consumer's handlers hear of every object again this often (0: never), as client-go's per-handler resync. */
  resyncMs?: number;
  /**
   * This consumer must see every write that completed before it started (the RBAC authorizer, after
   * the bootstrap policy's writes): the shared informer's first list is a consistent read
   * (InformerOptions.consistentFirstList). Only the view that starts the shared informer can ask it:
   * one already running listed long ago, and its watch may not have delivered such writes yet.
   */
  consistentFirstList?: boolean;
}

/** One list+watch, object map and index set, and the views of it that run. */
interface Entry {
  informer: Informer;
  /** Replaced, never changed in place: a handler that starts or stops a view does not disturb the fan-out under way. */
  views: readonly InformerView[];
}

/**
 * client-go's SharedInformerFactory for the controllers of one process: one informer per
 * (resource, namespace, filter), however many controllers read it, so each change is delivered,
 * kept and indexed once. Each consumer gets a view (InformerView) with its own handlers. A shared
 * informer starts with its first running view and stops with its last, so the informers of
 * controllers that run only while leading run only then; `stop()` ends them all for good.
 */
export class SharedInformers {
  private readonly entries = new Map<string, Entry>();
  /** The indexers each shared informer has been asked for, kept across its stops and starts. */
  private readonly indexers = new Map<string, Map<string, IndexFunc>>();
  /**
   * Each store's number in the keys: a store, not its resource's name, is what an informer follows
   * (a custom resource served again after its CRD was replaced has a new store).
   */
  private readonly storeIds = new WeakMap<ObjectStore, number>();
  private stores = 0;
  private stopped = false;

  constructor(
    private readonly log: ControllerLog,
    private readonly clock: Clock,
  ) {}

  /** A view of the shared informer of `store`'s objects that `opts` selects; it reads and tells `handlers` once started. */
  informer(store: ObjectStore, handlers: InformerHandlers, opts: SharedInformerOptions): CachedInformer {
    const namespace = opts.namespace ?? '';
    let storeId = this.storeIds.get(store);
    if (storeId === undefined) this.storeIds.set(store, (storeId = this.stores++));
    const key = `${storeId}|${namespace}|${opts.filter?.description ?? ''}`;
    const { resource } = store.def;
    const indexers = this.indexers.get(key) ?? new Map<string, IndexFunc>();
    this.indexers.set(key, indexers);
    for (const [name, indexFunc] of Object.entries(opts.indexers ?? {})) {
      const existing = indexers.get(name);
      if (existing && existing !== indexFunc)
        throw new Error(`informer ${opts.name}: index ${name} of ${resource} is already registered with another function`);
      if (existing) continue;
      indexers.set(name, indexFunc);
      this.entries.get(key)?.informer.addIndexer(name, indexFunc);
    }
    const name = `${resource}${namespace ? ` in ${namespace}` : ''}${opts.filter ? ` (${opts.filter.description})` : ''}`;
    const consistent = opts.consistentFirstList ?? false;
    const acquire = (view: InformerView): Informer | null => this.acquire(key, name, store, namespace, opts.filter?.predicate ?? everything, consistent, view);
    return new InformerView(opts.name, handlers, opts.resyncMs ?? 0, this.log, this.clock, acquire, (view) => this.release(key, view));
  }

  /** Stops every shared informer; no view starts one again. */
  stop(): void {
    this.stopped = true;
    for (const entry of this.entries.values()) entry.informer.stop();
    this.entries.clear();
  }

  private acquire(
    key: string,
    name: string,
    store: ObjectStore,
    namespace: string,
    predicate: Predicate,
    consistent: boolean,
    view: InformerView,
  ): Informer | null {
    if (this.stopped) return null;
    let entry = this.entries.get(key);
    if (entry && consistent) throw new Error(`informer ${view.name}: the shared informer of ${name} is already running; its first list cannot be consistent`);
    if (!entry) {
      const created: Entry = { informer: null!, views: [] };
      created.informer = new Informer(listWatchOf(store, namespace, predicate), fanOut(created), {
        name,
        log: this.log,
        clock: this.clock,
        indexers: Object.fromEntries(this.indexers.get(key)!),
        consistentFirstList: consistent,
      });
      entry = created;
      this.entries.set(key, entry);
    }
    entry.views = [...entry.views, view];
    entry.informer.start();
    return entry.informer;
  }

  private release(key: string, view: InformerView): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.views = entry.views.filter((v) => v !== view);
    if (entry.views.length > 0) return;
    // The last reader is gone: a later one lists afresh rather than hear of a stale map's changes.
    entry.informer.stop();
    this.entries.delete(key);
  }
}

/** The shared informer's handlers: each change goes to every running view, in the order they started. */
function fanOut(entry: Entry): InformerHandlers {
  return {
    added: (obj) => {
      for (const view of entry.views) view.tell(undefined, obj);
    },
    updated: (previous, obj) => {
      for (const view of entry.views) view.tell(previous, obj);
    },
    deleted: (obj) => {
      for (const view of entry.views) view.tell(obj, undefined);
    },
  };
}

/**
 * One consumer's informer, as client-go's shared informer with one event handler registered: it
 * reads the shared cache, and its handlers hear of changes from when it starts, a late start first
 * hearing "added" for each object already there. Started again after a stop, it hears of the
 * objects afresh.
 */
export class InformerView implements CachedInformer {
  private informer: Informer | null = null;
  private cancelResync: (() => void) | null = null;

  constructor(
    readonly name: string,
    private readonly handlers: InformerHandlers,
    private readonly resyncMs: number,
    private readonly log: ControllerLog,
    private readonly clock: Clock,
    private readonly acquire: (view: InformerView) => Informer | null,
    private readonly release: (view: InformerView) => void,
  ) {}

  get synced(): boolean {
    return this.informer?.synced ?? false;
  }

  start(): void {
    if (this.informer) return;
    this.informer = this.acquire(this);
    if (!this.informer) return;
    // client-go's AddEventHandler on a running informer: what is there already comes as additions.
    if (this.informer.synced) for (const obj of this.informer.list()) this.tell(undefined, obj);
    this.scheduleResync();
  }

  waitForSync(): Promise<void> {
    return this.informer ? this.informer.waitForSync() : Promise.resolve();
  }

  stop(): void {
    if (!this.informer) return;
    this.informer = null;
    this.cancelResync?.();
    this.cancelResync = null;
    this.release(this);
  }

  list(): KubeObject[] {
    return this.informer?.list() ?? [];
  }

  get(key: string): KubeObject | undefined {
    return this.informer?.get(key);
  }

  byIndex(name: string, value: string): KubeObject[] {
    return this.informer?.byIndex(name, value) ?? [];
  }

  problem(): string | null {
    return this.informer?.problem() ?? null;
  }

  /** Tells the handlers: `next` added (no `previous`), updated, or `previous` deleted (no `next`); a handler that throws is logged. */
  tell(previous: KubeObject | undefined, next: KubeObject | undefined): void {
    try {
      if (!next) this.handlers.deleted?.(previous!);
      else if (previous) this.handlers.updated?.(previous, next);
      else this.handlers.added?.(next);
    } catch (err) {
      this.log(`informer ${this.name}: handler failed`, err);
    }
  }

  private scheduleResync(): void {
    if (this.resyncMs <= 0) return;
    this.cancelResync = this.clock.after(this.resyncMs, () => {
      if (!this.informer) return;
      for (const obj of this.informer.list()) this.tell(obj, obj);
      this.scheduleResync();
    });
  }
}
