import type { CallSignal } from '../../api/request-abort';
import { systemClock, type Clock } from '../../api/clock';
import { jsonEqual } from '../../api/deep-equal';
import { jsonClone } from '../../api/json-clone';
import type { KubeObject } from '../../api/types';
import { loopSlices } from '../../api/loop-slices';
import { decodeContinue, encodeContinue } from '../continue-token';
import { filterEvent } from '../event-filter';
import {
  everything,
  type DeleteOptions,
  type ListOptions,
  type ListResult,
  type ReadConsistency,
  type Storage,
  type StorageEvent,
  type TryUpdate,
  type UpdateOptions,
  type WatchItem,
  type WatchOptions,
  type WriteOptions,
} from '../interfaces';
import { checkPreconditions } from '../preconditions';
import { parseRequestedRevision, parseRevision, zeroAsZero, type Revision } from '../revision';
import { isStorageError, StorageError } from '../storage-error';
import { WatchChannel } from '../watch-channel';
import { prefixEnd, type KeyValue, type KV, type KvEvent, type KvWriteOptions } from './kv';
import { LeaseManager } from './lease-manager';
import { StorageCodec, type StoredEncoding } from './storage-codec';
import type { ValueTransformer } from './transformers/value-transformer';
import { MAX_LISTED_UNREADABLE, UnreadableValue, unreadableListError, unreadableObjectError } from './unreadable-value';

export interface EtcdStorageOptions {
  /** Encryption at rest: the transformer for the value under a key; none stores plain JSON. */
  transformerFor?: (key: string) => ValueTransformer | undefined;
  /** The AllowUnsafeMalformedObjectDeletion gate: how unreadable values are reported. */
  unsafeCorruptObjectDeletion?: boolean;
  /** When shared leases of TTL writes run out; the system's unless a test moves it. */
  clock?: Clock;
  /** How objects are encoded (--storage-media-type); Protobuf for built-in kinds unless given. */
  codec?: StorageCodec;
  /** Objects per range of a watch cache's list (kube's storageWatchListPageSize unless a test makes it small). */
  cacheListPageSize?: number;
}

/** A stored value read: its object, whether an older key encrypted it, and its plain bytes. */
interface ReadValue {
  object: KubeObject;
  stale: boolean;
  data: Buffer;
  encoding: StoredEncoding;
}

/** kube's storageWatchListPageSize. */
const WATCH_CACHE_LIST_PAGE = 10_000;

/** Storage straight on etcd: every read is a quorum read, every write one guarded transaction. */
export class EtcdStorage implements Storage {
  private readonly leases: LeaseManager;
  private readonly codec: StorageCodec;

  constructor(
    private readonly kv: KV,
    /** A key under which nothing is stored, read to learn the current revision; also the etcd prefix. */
    private readonly revisionProbeKey: string,
    private readonly opts: EtcdStorageOptions = {},
  ) {
    const clock = opts.clock ?? systemClock;
    this.leases = new LeaseManager(kv, () => clock.now());
    this.codec = opts.codec ?? new StorageCodec();
  }

  /** A write's call: its signal, and a lease when the object is to expire (etcd3 store's ttlOpts). */
  private async writeCall(opts: WriteOptions): Promise<KvWriteOptions> {
    const call = { signal: opts.signal, batch: opts.batch };
    return opts.ttlSeconds ? { ...call, lease: await this.leases.lease(opts.ttlSeconds, call) } : call;
  }

  /** Reads a stored value: transform (decrypt), then decode (JSON, YAML or Protobuf); throws UnreadableValue. */
  private read(kv: KeyValue, revision = kv.modRevision): ReadValue {
    let data = kv.value;
    let stale = false;
    const transformer = this.opts.transformerFor?.(kv.key);
    if (transformer) {
      try {
        ({ data, stale } = transformer.fromStorage(kv.value, kv.key));
      } catch (err) {
        throw new UnreadableValue(kv.key, 'untransformable', (err as Error).message, 0);
      }
    }
    const encoding = this.codec.encodingOfData(data);
    let obj: KubeObject;
    try {
      obj = this.codec.decode(data, encoding);
    } catch (err) {
      throw new UnreadableValue(kv.key, 'undecodable', (err as Error).message, kv.modRevision);
    }
    if (typeof obj !== 'object' || obj === null || typeof obj.metadata !== 'object' || obj.metadata === null) {
      throw new UnreadableValue(kv.key, 'undecodable', "Object 'metadata' is missing or not an object", kv.modRevision);
    }
    obj.metadata.resourceVersion = String(revision);
    return { object: obj, stale, data, encoding };
  }

  private decode(kv: KeyValue, revision = kv.modRevision): KubeObject {
    try {
      return this.read(kv, revision).object;
    } catch (err) {
      throw this.unreadable(err);
    }
  }

  private unreadable(err: unknown): unknown {
    if (!(err instanceof UnreadableValue)) return err;
    const relativeKey = `/${err.key.slice(this.revisionProbeKey.length)}`;
    return unreadableObjectError(err, relativeKey, !!this.opts.unsafeCorruptObjectDeletion);
  }

  /**
   * Objects are stored without a resourceVersion (etcd's revision is the only truth); an empty one
   * keeps its place in the field order for the revision written in on every read. The encoded
   * bytes are then transformed (encrypted) when the resource has a transformer.
   */
  private encode(obj: KubeObject, encoding = this.codec.encodingOf(obj)): Buffer {
    const restore = emptyResourceVersion(obj);
    try {
      return this.codec.encode(obj, encoding);
    } finally {
      restore();
    }
  }

  /** encode for an update, whose object may be large: its long lists are encoded in slices. */
  private async encodeInSlices(obj: KubeObject, encoding: StoredEncoding, slice: () => Promise<void>): Promise<Buffer> {
    const restore = emptyResourceVersion(obj);
    try {
      return await this.codec.encodeInSlices(obj, encoding, slice);
    } finally {
      restore();
    }
  }

  private transform(data: Buffer, key: string): Buffer {
    const transformer = this.opts.transformerFor?.(key);
    return transformer ? transformer.toStorage(data, key) : data;
  }

  /** kube's etcd3 store answers a revision it has not reached with no retry delay (NewTooLargeResourceVersionError(..., 0)). */
  private static tooLarge(minimum: Revision, current: number): StorageError {
    const err = new StorageError('FutureRevision', `Too large resource version: ${minimum}, current: ${current}`);
    err.retryAfterSeconds = 0;
    return err;
  }

  /** etcd3 store's GetList on etcd's ErrFutureRev: the current revision, or 0 when it cannot be read. */
  private async notReached(revision: Revision, signal?: CallSignal): Promise<StorageError> {
    return EtcdStorage.tooLarge(revision, await this.currentRevision(signal).catch(() => 0));
  }

  /** A revision to read at; one past 2^53 is answered as etcd's ErrFutureRev is, without asking etcd. */
  private async readable(revision: Revision, signal?: CallSignal): Promise<number> {
    if (typeof revision === 'bigint') throw await this.notReached(revision, signal);
    return revision;
  }

  /**
   * `decoded`, given by a cache, answers the object it already holds for this key at a revision:
   * the same value decoded once, so a read that finds it unchanged skips decoding it again.
   */
  async get(key: string, opts: ReadConsistency, decoded?: (modRevision: number) => KubeObject | undefined): Promise<KubeObject> {
    const exact = opts.match === 'Exact' ? await this.readable(parseRevision(opts.resourceVersion), opts.signal) : 0;
    const { kv, revision } = await this.kv.get(key, exact || undefined, { signal: opts.signal });
    // etcd3 store's validateMinimumResourceVersion: read after etcd answered, a 400 if it is not a uint64
    const minimum = opts.match !== 'Exact' && opts.resourceVersion !== '' ? parseRequestedRevision(opts.resourceVersion) : 0;
    if (minimum > revision) throw EtcdStorage.tooLarge(minimum, revision);
    if (!kv) throw new StorageError('KeyNotFound', `key ${key} not found`, key);
    return decoded?.(kv.modRevision) ?? this.decode(kv);
  }

  async list(prefix: string, opts: ListOptions): Promise<ListResult> {
    const { entries, ...rest } = await this.listEntries(prefix, opts);
    return { items: entries.map((e) => e.object), ...rest };
  }

  /** Everything under a prefix that can be read, and the keys of values that cannot (for caches). */
  async listReadable(prefix: string): Promise<ListResult & { unreadable: string[] }> {
    const unreadable: string[] = [];
    const items: KubeObject[] = [];
    const pageSize = this.opts.cacheListPageSize ?? WATCH_CACHE_LIST_PAGE;
    // In pages at one revision, as kube's cacher lists (storageWatchListPageSize): the raw values of
    // one page, not of the whole resource, are held beside the decoded objects.
    let page = await this.listEntries(prefix, { resourceVersion: '', match: '', predicate: everything, limit: pageSize }, unreadable);
    for (;;) {
      for (const entry of page.entries) items.push(entry.object);
      if (!page.continue) break;
      page = await this.listEntries(prefix, { resourceVersion: '', match: '', predicate: everything, limit: pageSize, continue: page.continue }, unreadable);
    }
    return { items, resourceVersion: page.resourceVersion, unreadable };
  }

  /**
   * A list that keeps each object's key beside it. With `unreadable`, values that cannot be read
   * are skipped and their keys collected there instead of failing the list.
   */
  private async listEntries(
    prefix: string,
    opts: ListOptions,
    unreadable?: string[],
  ): Promise<Omit<ListResult, 'items'> & { entries: { key: string; object: KubeObject }[] }> {
    let revision = 0;
    let start = prefix;
    if (opts.continue) {
      const token = decodeContinue(opts.continue);
      revision = Math.max(token.revision, 0);
      start = prefix + token.startKey;
    } else if (opts.resourceVersion !== '' && opts.resourceVersion !== '0') {
      const rv = parseRevision(opts.resourceVersion);
      if (opts.match === 'Exact' || (opts.match === '' && (opts.limit ?? 0) > 0)) revision = await this.readable(rv, opts.signal);
    }
    const end = prefixEnd(prefix);
    const limit = opts.limit ?? 0;
    const entries: { key: string; object: KubeObject }[] = [];
    let readAt = revision;
    let lastKey = '';
    let more = false;
    let remaining: number | undefined;
    const failures: UnreadableValue[] = [];
    let truncated = false;
    // With a selector some keys do not match, so a chunk may need several ranges to fill.
    let pageSize = limit;
    scan: for (;;) {
      const page = await this.kv
        .range(start, end, { revision: readAt || undefined, limit: pageSize || undefined }, { signal: opts.signal })
        .catch(async (err: unknown) => {
          if (isStorageError(err, 'TooOld')) throw expired(prefix, start, limit > 0);
          throw isStorageError(err, 'FutureRevision') ? await this.notReached(readAt, opts.signal) : err;
        });
      if (!readAt) readAt = page.revision;
      let stoppedEarly = false;
      for (let i = 0; i < page.kvs.length; i++) {
        const kv = page.kvs[i];
        lastKey = kv.key;
        let obj: KubeObject;
        try {
          obj = this.read(kv).object;
        } catch (err) {
          if (!(err instanceof UnreadableValue)) throw err;
          if (unreadable) {
            unreadable.push(kv.key);
            continue;
          }
          if (!this.opts.unsafeCorruptObjectDeletion) throw unreadableListError([err], false, false);
          if (failures.length >= MAX_LISTED_UNREADABLE) {
            truncated = true;
            break scan;
          }
          failures.push(err);
          continue;
        }
        if (opts.predicate.matches(obj)) entries.push({ key: kv.key, object: obj });
        if (limit > 0 && entries.length >= limit) {
          stoppedEarly = i < page.kvs.length - 1;
          more = stoppedEarly || page.more;
          if (more && opts.predicate.empty) remaining = page.count - (i + 1);
          break;
        }
      }
      if (limit === 0 || entries.length >= limit || !page.more) break;
      start = `${lastKey}\0`;
      pageSize = Math.min(pageSize * 2, 10_000);
    }
    if (failures.length > 0) throw unreadableListError(failures, truncated, true);
    const minimum =
      opts.match !== 'Exact' && !opts.continue && opts.resourceVersion !== '' && opts.resourceVersion !== '0' ? parseRevision(opts.resourceVersion) : 0;
    if (minimum > readAt) throw EtcdStorage.tooLarge(minimum, readAt);
    const result: Omit<ListResult, 'items'> & { entries: typeof entries } = { entries, resourceVersion: String(readAt) };
    if (more) {
      result.continue = encodeContinue({ revision: readAt, startKey: `${lastKey}\0`.slice(prefix.length) });
      if (remaining !== undefined && remaining > 0) result.remainingItemCount = remaining;
    }
    return result;
  }

  async create(key: string, obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const call = { signal: opts.signal };
    if (opts.dryRun) {
      const { kv } = await this.kv.get(key, undefined, call);
      if (kv) throw new StorageError('KeyExists', `key ${key} already exists`, key);
      return obj;
    }
    const res = await this.kv.create(key, this.transform(this.encode(obj), key), await this.writeCall(opts));
    if (!res.ok) throw new StorageError('KeyExists', `key ${key} already exists`, key);
    obj.metadata.resourceVersion = String(res.revision);
    return obj;
  }

  /**
   * GuaranteedUpdate. `cached` is the watch cache's copy of the object (kube's cachedExistingObject):
   * it stands in for the first read, and the write is guarded by its revision. An update that fails
   * on it, finds nothing to change in it, or loses the race is computed again on etcd's value, as
   * kube's store does while its original state is not known to be current. A dry run never takes
   * the cache's copy: with nothing written, no failed transaction would reveal that copy was stale, so
   * it reads etcd as kube's DryRunnableStorage.GuaranteedUpdate does (a Get at resourceVersion "").
   */
  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts: UpdateOptions = {}, cached?: KubeObject): Promise<KubeObject> {
    const call = { signal: opts.signal };
    let suggested = opts.dryRun ? undefined : cached;
    let kv: KeyValue | null = null;
    if (!suggested) ({ kv } = await this.kv.get(key, undefined, call));
    for (;;) {
      let stored: ReadValue | null = null;
      if (!suggested) {
        if (!kv && !opts.ignoreNotFound) throw new StorageError('KeyNotFound', `key ${key} not found`, key);
        if (kv) {
          try {
            stored = this.read(kv);
          } catch (err) {
            throw this.unreadable(err);
          }
        }
      }
      const current = suggested ?? stored?.object ?? null;
      let next: KubeObject;
      try {
        next = await tryUpdate(current ? jsonClone(current) : null);
      } catch (err) {
        if (!suggested) throw err;
        suggested = undefined;
        ({ kv } = await this.kv.get(key, undefined, call));
        continue;
      }
      const encoding = this.codec.encodingOf(next);
      const slice = loopSlices();
      const plain = await this.encodeInSlices(next, encoding, slice);
      if (suggested && (await this.unchanged(next, plain, suggested, encoding, slice))) {
        // Whether there is nothing to write is decided on etcd's value, never on the cache's copy.
        suggested = undefined;
        ({ kv } = await this.kv.get(key, undefined, call));
        continue;
      }
      // A value read with an older key, or stored in another encoding, is rewritten even when nothing changed.
      if (stored && !stored.stale && stored.encoding === encoding && sameContent(next, plain, stored)) return stored.object;
      const revision = suggested ? Number(suggested.metadata.resourceVersion) : kv?.modRevision;
      const data = this.transform(plain, key);
      if (opts.dryRun) {
        // A dry-run create (apply, or PUT of a kind that allows it) has no revision to show: kube answers the object as built.
        if (revision !== undefined) next.metadata.resourceVersion = String(revision);
        return next;
      }
      const write = await this.writeCall(opts);
      const res = revision !== undefined ? await this.kv.update(key, data, revision, write) : await this.kv.create(key, data, write);
      if (res.ok) {
        next.metadata.resourceVersion = String(res.revision);
        return next;
      }
      suggested = undefined;
      kv = res.current;
    }
  }

  /** Whether `next` (encoded as `plain`) holds what the cache's copy of the stored object holds. */
  private async unchanged(next: KubeObject, plain: Buffer, cached: KubeObject, encoding: StoredEncoding, slice: () => Promise<void>): Promise<boolean> {
    const rv = next.metadata.resourceVersion;
    next.metadata.resourceVersion = cached.metadata.resourceVersion;
    try {
      if (jsonEqual(next, cached)) return true;
    } finally {
      next.metadata.resourceVersion = rv;
    }
    await slice();
    // The cache's copy is shared with every reader, and the encoding empties its resourceVersion
    // across the slices' yields: encode it under metadata of its own.
    return plain.equals(await this.encodeInSlices({ ...cached, metadata: { ...cached.metadata } }, encoding, slice));
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    const call = { signal: opts.signal };
    let { kv } = await this.kv.get(key, undefined, call);
    for (;;) {
      if (!kv) throw new StorageError('KeyNotFound', `key ${key} not found`, key);
      const current = this.decode(kv);
      checkPreconditions(key, current, opts.preconditions);
      await opts.validateDeletion?.(current);
      if (opts.dryRun) return current;
      const res = await this.kv.delete(key, kv.modRevision, call);
      if (res.ok) {
        current.metadata.resourceVersion = String(res.revision);
        return current;
      }
      kv = res.current;
    }
  }

  /**
   * Removes a value that cannot be read, unconditionally but only while it still cannot be read:
   * a value that became readable again is left alone (Conflict).
   */
  async deleteUnreadable(key: string): Promise<void> {
    let { kv } = await this.kv.get(key);
    for (;;) {
      if (!kv) throw new StorageError('KeyNotFound', `key ${key} not found`, key);
      try {
        this.read(kv);
        throw new StorageError(
          'Conflict',
          'the object can be read again and was not deleted; delete it without ignoreStoreReadErrorWithClusterBreakingPotential',
          key,
        );
      } catch (err) {
        if (!(err instanceof UnreadableValue)) throw err;
      }
      const res = await this.kv.delete(key, kv.modRevision);
      if (res.ok) return;
      kv = res.current;
    }
  }

  async count(prefix: string): Promise<number> {
    return this.kv.count(prefix, prefixEnd(prefix));
  }

  async currentRevision(signal?: CallSignal): Promise<number> {
    return (await this.kv.get(this.revisionProbeKey, undefined, { signal })).revision;
  }

  /**
   * Whether etcd can still be read at `revision` (a watch from `revision - 1` can start there):
   * false once etcd's history was compacted past it, by kapi or by anyone else.
   */
  async readableAt(revision: number, signal?: CallSignal): Promise<boolean> {
    try {
      await this.kv.get(this.revisionProbeKey, revision, { signal });
      return true;
    } catch (err) {
      if (isStorageError(err, 'TooOld')) return false;
      throw err;
    }
  }

  /**
   * Converts an etcd event to a storage event; throws Corrupt for a value that cannot be decoded.
   * A change's previous state is decoded only for a watch that filters (`withPrevious`), as the
   * etcd3 watcher's prepareObjects decodes prevValue only when its filter is not Everything: a
   * watch of everything never looks at it (the watch cache keeps its own).
   */
  toStorageEvent(e: KvEvent, withPrevious = true): StorageEvent {
    const revision = e.kv.modRevision;
    if (e.type === 'delete') {
      const last = e.prevKv ? this.decode(e.prevKv, revision) : { metadata: { resourceVersion: String(revision) } };
      return { type: 'DELETED', key: e.kv.key, object: last, previous: e.prevKv ? this.decode(e.prevKv) : undefined, revision };
    }
    const object = this.decode(e.kv);
    if (e.kv.createRevision === e.kv.modRevision) return { type: 'ADDED', key: e.kv.key, object, revision };
    return { type: 'MODIFIED', key: e.kv.key, object, previous: e.prevKv && withPrevious ? this.decode(e.prevKv) : undefined, revision };
  }

  async watch(prefix: string, requested: WatchOptions): Promise<WatchChannel<WatchItem>> {
    const opts = zeroAsZero(requested);
    const channel = new WatchChannel<WatchItem>(10_000);
    let from: number;
    const initial = opts.resourceVersion === '' || opts.resourceVersion === '0' || opts.sendInitialEvents;
    if (initial) {
      const revision = opts.resourceVersion === '' || opts.resourceVersion === '0' ? 0 : parseRevision(opts.resourceVersion);
      const list = await this.listEntries(prefix, {
        resourceVersion: revision ? String(revision) : '',
        match: revision ? 'NotOlderThan' : '',
        predicate: opts.predicate,
        signal: opts.signal,
      });
      for (const { key, object } of list.entries) channel.push({ type: 'ADDED', key, object, revision: Number(object.metadata.resourceVersion) });
      if (opts.sendInitialEvents) channel.push({ type: 'INITIAL_EVENTS_END', revision: Number(list.resourceVersion) });
      from = Number(list.resourceVersion) + 1;
    } else {
      const after = parseRevision(opts.resourceVersion);
      // etcd would hold such a watch until its revision, which kapi never reaches: no events ever.
      if (typeof after === 'bigint') return channel;
      from = after + 1;
    }
    const watch = this.kv.watch(prefix, prefixEnd(prefix), from, {
      events: (events) => {
        for (const e of events) {
          let item: StorageEvent | null;
          try {
            item = filterEvent(this.toStorageEvent(e, !opts.predicate.empty), opts.predicate);
          } catch (err) {
            if (opts.onUnreadable && err instanceof StorageError && err.code === 'Corrupt') {
              opts.onUnreadable(e.kv.key, e.type === 'delete', e.kv.modRevision);
              continue;
            }
            channel.fail(err as Error);
            return;
          }
          if (item && !channel.push(item)) return;
        }
      },
      progress: (revision) => channel.push({ type: 'PROGRESS', revision }),
      // As kube's etcd3 watcher (interpretWatchError): a compacted start revision is Expired.
      closed: (err) => channel.fail(isStorageError(err, 'TooOld') ? new StorageError('TooOld', WATCH_EXPIRED) : err),
    });
    channel.requestProgress = () => watch.requestProgress();
    channel.onClose(() => watch.cancel());
    return channel;
  }
}

const LIST_EXPIRED = 'The resourceVersion for the provided list is too old.';
const WATCH_EXPIRED = 'The resourceVersion for the provided watch is too old.';
const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';
const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * The history a list needs was compacted away. A chunked list gets a token that continues at the
 * latest revision instead, for clients that accept an inconsistent result.
 */
function expired(prefix: string, start: string, paging: boolean): StorageError {
  if (!paging) return new StorageError('TooOld', LIST_EXPIRED);
  if (start === prefix) return new StorageError('TooOld', CONTINUE_EXPIRED);
  const err = new StorageError('TooOld', INCONSISTENT_CONTINUE);
  err.continueToken = encodeContinue({ revision: -1, startKey: start.slice(prefix.length) });
  return err;
}

/**
 * A no-op update writes nothing and keeps the resourceVersion, as in kube-apiserver: the same bytes
 * (etcd3 store's GuaranteedUpdate), or for JSON, whose key order may differ, the same content.
 */
function sameContent(next: KubeObject, plain: Buffer, stored: ReadValue): boolean {
  if (plain.equals(stored.data)) return true;
  if (stored.encoding === 'protobuf') return false;
  const current = stored.object;
  const rv = next.metadata.resourceVersion;
  next.metadata.resourceVersion = current.metadata.resourceVersion;
  try {
    return jsonEqual(next, current);
  } finally {
    next.metadata.resourceVersion = rv;
  }
}

/** Objects are stored with an empty resourceVersion in its place (see encode): empties it, and gives what puts it back. */
function emptyResourceVersion(obj: KubeObject): () => void {
  const meta = obj.metadata;
  if (!('resourceVersion' in meta)) return () => {};
  const rv = meta.resourceVersion;
  meta.resourceVersion = '';
  return () => {
    meta.resourceVersion = rv;
  };
}
