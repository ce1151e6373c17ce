import type { CallSignal } from '../api/request-abort';
import type { KubeObject } from '../api/types';
import type { CreateBatch } from './etcd/create-batch';
import type { WatchChannel } from './watch-channel';

/** Decides whether an object belongs to a result; selectors compile to one of these. */
export interface Predicate {
  matches(obj: KubeObject): boolean;
  /** True when it matches everything, so counts such as remainingItemCount stay exact. */
  readonly empty: boolean;
}

export const everything: Predicate = { matches: () => true, empty: true };

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** How a read may be served: the resourceVersion and resourceVersionMatch of the request, already validated. */
export interface ReadConsistency {
  /** '' = most recent (quorum); '0' = any; otherwise a revision. */
  resourceVersion: string;
  match: '' | 'Exact' | 'NotOlderThan';
  /** Ends the call (504 Timeout) when it aborts: the request's deadline or its client gone. */
  signal?: CallSignal;
}

export interface ListOptions extends ReadConsistency {
  predicate: Predicate;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
  /** The apiVersion and kind every item carries, where the storage knows it without reading each (the watch cache's tally). */
  itemsType?: ItemsType;
}

export interface ItemsType {
  apiVersion: string;
  kind: string;
}

export type StorageEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StorageEvent {
  type: StorageEventType;
  /** The etcd key of the object. */
  key: string;
  /** The object after the change; for DELETED, its last state stamped with the deletion revision. */
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED). */
  previous?: KubeObject;
  revision: number;
}

/** What a watch delivers: changes, and the revision it has caught up to when nothing changed. */
export type WatchItem = StorageEvent | { type: 'PROGRESS'; revision: number } | { type: 'INITIAL_EVENTS_END'; revision: number };

export interface WatchOptions {
  /** '' or '0': start from the current state (synthetic ADDED for what exists); otherwise changes after this revision. */
  resourceVersion: string;
  predicate: Predicate;
  /** Send the current state as ADDED first, even when a resourceVersion is given (streaming lists). */
  sendInitialEvents?: boolean;
  /**
   * For caches: a value that cannot be read (written, or deleted) is reported here and skipped
   * instead of ending the watch.
   */
  onUnreadable?: (key: string, deleted: boolean, revision: number) => void;
  /** Bounds the watch's set-up (waiting for the cache, the initial list). */
  signal?: CallSignal;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** Ends the call when it aborts; a write not yet sent is then never sent. */
  signal?: CallSignal;
  /** etcd removes the written key this many seconds later (kube's storage TTL); 0 or absent: never. */
  ttlSeconds?: number;
  /** A create may share its etcd transaction with the batch's others (the server's own bootstrap writes). */
  batch?: CreateBatch;
}

/**
 * Computes the next state from the current one. Returning `null` from a delete-capable update
 * is not allowed; throw a StatusError to abort.
 */
export type TryUpdate = (current: KubeObject | null) => Promise<KubeObject>;

export interface UpdateOptions extends WriteOptions {
  /** Call tryUpdate with null instead of failing when the key is absent (create on update). */
  ignoreNotFound?: boolean;
}

export interface DeleteOptions extends WriteOptions {
  preconditions?: Preconditions;
  /** Runs against the object about to be deleted, after each re-read; throw to refuse. */
  validateDeletion?: (current: KubeObject) => Promise<void> | void;
}

/** The storage contract: keys are full etcd keys, objects are plain JSON with resourceVersion set. */
export interface Storage {
  get(key: string, opts: ReadConsistency): Promise<KubeObject>;
  list(prefix: string, opts: ListOptions): Promise<ListResult>;
  create(key: string, obj: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
  /** Read, compute, write guarded by the read's revision; re-reads and recomputes when the object moved. */
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts?: UpdateOptions): Promise<KubeObject>;
  delete(key: string, opts?: DeleteOptions): Promise<KubeObject>;
  /** Removes a value that cannot be read (unsafe deletion of a corrupt object); KeyNotFound when absent. */
  deleteUnreadable(key: string): Promise<void>;
  watch(prefix: string, opts: WatchOptions): Promise<WatchChannel<WatchItem>>;
  count(prefix: string): Promise<number>;
  /** The latest revision the store knows of (a quorum read). */
  currentRevision(): Promise<number>;
  /**
   * Where reads are served from memory: a number that moves whenever an object under the store's
   * root changes (and undefined while the cache cannot vouch for its objects). Absent on etcd.
   */
  changeMark?(): number | undefined;
  /**
   * Where reads are served from memory, what kube's listers read, at once: the object under `key`
   * (null: none), or every object under `prefix`; undefined while the cache cannot vouch for them.
   */
  peek?(key: string): KubeObject | null | undefined;
  peekUnder?(prefix: string): KubeObject[] | undefined;
}
