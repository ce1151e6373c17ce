import { jsonEqual } from '../../api/deep-equal';
import type { KubeObject } from '../../api/types';
import { decodeContinue, encodeContinue } from '../continue-token';
import { filterEvent } from '../event-filter';
import type {
  DeleteOptions,
  ListOptions,
  ListResult,
  ReadConsistency,
  Storage,
  StorageEvent,
  TryUpdate,
  UpdateOptions,
  WatchItem,
  WatchOptions,
  WriteOptions,
} from '../interfaces';
import { checkPreconditions } from '../preconditions';
import { parseRevision } from '../revision';
import { isStorageError, StorageError } from '../storage-error';
import { WatchChannel } from '../watch-channel';
import { prefixEnd, type KeyValue, type KV, type KvEvent } from './kv';

/** Storage straight on etcd: every read is a quorum read, every write one guarded transaction. */
export class EtcdStorage implements Storage {
  constructor(
    private readonly kv: KV,
    /** A key under which nothing is stored, read to learn the current revision. */
    private readonly revisionProbeKey: string,
  ) {}

  private decode(kv: KeyValue, revision = kv.modRevision): KubeObject {
    let obj: KubeObject;
    try {
      obj = JSON.parse(kv.value.toString('utf8')) as KubeObject;
    } catch (err) {
      throw new StorageError('Corrupt', `failed to decode the object stored at ${kv.key}: ${(err as Error).message}`, kv.key);
    }
    if (typeof obj !== 'object' || obj === null || typeof obj.metadata !== 'object' || obj.metadata === null) {
      throw new StorageError('Corrupt', `the object stored at ${kv.key} has no metadata`, kv.key);
    }
    obj.metadata.resourceVersion = String(revision);
    return obj;
  }

  /**
   * Objects are stored without a resourceVersion (etcd's revision is the only truth); an empty one
   * keeps its place in the field order for the revision written in on every read.
   */
  private encode(obj: KubeObject): Buffer {
    const meta = obj.metadata;
    const hasSlot = 'resourceVersion' in meta;
    const rv = meta.resourceVersion;
    if (hasSlot) meta.resourceVersion = '';
    try {
      return Buffer.from(JSON.stringify(obj));
    } finally {
      if (hasSlot) meta.resourceVersion = rv;
    }
  }

  private static tooLarge(minimum: number, current: number): StorageError {
    return new StorageError('FutureRevision', `Too large resource version: ${minimum}, current: ${current}`);
  }

  async get(key: string, opts: ReadConsistency): Promise<KubeObject> {
    const exact = opts.match === 'Exact' ? parseRevision(opts.resourceVersion) : 0;
    const { kv, revision } = await this.kv.get(key, exact || undefined);
    const minimum = opts.match !== 'Exact' && opts.resourceVersion !== '' ? parseRevision(opts.resourceVersion) : 0;
    if (minimum > revision) throw EtcdStorage.tooLarge(minimum, revision);
    if (!kv) throw new StorageError('KeyNotFound', `key ${key} not found`, key);
    return this.decode(kv);
  }

  async list(prefix: string, opts: ListOptions): Promise<ListResult> {
    const { entries, ...rest } = await this.listEntries(prefix, opts);
    return { items: entries.map((e) => e.object), ...rest };
  }

  /** A list that keeps each object's key beside it. */
  private async listEntries(prefix: string, opts: ListOptions): Promise<Omit<ListResult, 'items'> & { entries: { key: string; object: KubeObject }[] }> {
    let revision = 0;
    let start = prefix;
    if (opts.continue) {
      const token = decodeContinue(opts.continue);
      revision = Math.max(token.revision, 0);
      start = prefix + token.startKey;
    } else if (opts.resourceVersion !== '' && opts.resourceVersion !== '0') {
      const rv = parseRevision(opts.resourceVersion);
      if (opts.match === 'Exact' || (opts.match === '' && (opts.limit ?? 0) > 0)) revision = rv;
    }
    const end = prefixEnd(prefix);
    const limit = opts.limit ?? 0;
    const entries: { key: string; object: KubeObject }[] = [];
    let readAt = revision;
    let lastKey = '';
    let more = false;
    let remaining: number | undefined;
    // With a selector some keys do not match, so a chunk may need several ranges to fill.
    let pageSize = limit;
    for (;;) {
      const page = await this.kv.range(start, end, { revision: readAt || undefined, limit: pageSize || undefined }).catch((err: unknown) => {
        throw isStorageError(err, 'TooOld') ? expired(prefix, start, limit > 0) : err;
      });
      if (!readAt) readAt = page.revision;
      let stoppedEarly = false;
      for (let i = 0; i < page.kvs.length; i++) {
        const kv = page.kvs[i];
        lastKey = kv.key;
        const obj = this.decode(kv);
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
    const minimum = opts.match !== 'Exact' && !opts.continue && opts.resourceVersion !== '' && opts.resourceVersion !== '0'
      ? parseRevision(opts.resourceVersion)
      : 0;
    if (minimum > readAt) throw EtcdStorage.tooLarge(minimum, readAt);
    const result: Omit<ListResult, 'items'> & { entries: typeof entries } = { entries, resourceVersion: String(readAt) };
    if (more) {
      result.continue = encodeContinue({ revision: readAt, startKey: `${lastKey}\0`.slice(prefix.length) });
      if (remaining !== undefined && remaining > 0) result.remainingItemCount = remaining;
    }
    return result;
  }

  async create(key: string, obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    if (opts.dryRun) {
      const { kv } = await this.kv.get(key);
      if (kv) throw new StorageError('KeyExists', `key ${key} already exists`, key);
      return obj;
    }
    const res = await this.kv.create(key, this.encode(obj));
    if (!res.ok) throw new StorageError('KeyExists', `key ${key} already exists`, key);
    obj.metadata.resourceVersion = String(res.revision);
    return obj;
  }

  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts: UpdateOptions = {}): Promise<KubeObject> {
    let { kv } = await this.kv.get(key);
    for (;;) {
      if (!kv && !opts.ignoreNotFound) throw new StorageError('KeyNotFound', `key ${key} not found`, key);
      const current = kv ? this.decode(kv) : null;
      const next = await tryUpdate(current ? structuredClone(current) : null);
      if (current && sameContent(next, current)) return current;
      const data = this.encode(next);
      if (opts.dryRun) {
        next.metadata.resourceVersion = kv ? String(kv.modRevision) : '';
        return next;
      }
      const res = kv ? await this.kv.update(key, data, kv.modRevision) : await this.kv.create(key, data);
      if (res.ok) {
        next.metadata.resourceVersion = String(res.revision);
        return next;
      }
      kv = res.current;
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    let { kv } = await this.kv.get(key);
    for (;;) {
      if (!kv) throw new StorageError('KeyNotFound', `key ${key} not found`, key);
      const current = this.decode(kv);
      checkPreconditions(key, current, opts.preconditions);
      await opts.validateDeletion?.(current);
      if (opts.dryRun) return current;
      const res = await this.kv.delete(key, kv.modRevision);
      if (res.ok) return current;
      kv = res.current;
    }
  }

  async count(prefix: string): Promise<number> {
    return this.kv.count(prefix, prefixEnd(prefix));
  }

  async currentRevision(): Promise<number> {
    return (await this.kv.get(this.revisionProbeKey)).revision;
  }

  /** Converts an etcd event to a storage event; throws Corrupt for a value that cannot be decoded. */
  toStorageEvent(e: KvEvent): StorageEvent {
    const revision = e.kv.modRevision;
    if (e.type === 'delete') {
      const last = e.prevKv ? this.decode(e.prevKv, revision) : { metadata: { resourceVersion: String(revision) } };
      return { type: 'DELETED', key: e.kv.key, object: last, previous: e.prevKv ? this.decode(e.prevKv) : undefined, revision };
    }
    const object = this.decode(e.kv);
    if (e.kv.createRevision === e.kv.modRevision) return { type: 'ADDED', key: e.kv.key, object, revision };
    return { type: 'MODIFIED', key: e.kv.key, object, previous: e.prevKv ? this.decode(e.prevKv) : undefined, revision };
  }

  async watch(prefix: string, opts: WatchOptions): Promise<WatchChannel<WatchItem>> {
    const channel = new WatchChannel<WatchItem>(10_000);
    let from: number;
    const initial = opts.resourceVersion === '' || opts.resourceVersion === '0' || opts.sendInitialEvents;
    if (initial) {
      const revision = opts.resourceVersion === '' || opts.resourceVersion === '0' ? 0 : parseRevision(opts.resourceVersion);
      const list = await this.listEntries(prefix, { resourceVersion: revision ? String(revision) : '', match: revision ? 'NotOlderThan' : '', predicate: opts.predicate });
      for (const { key, object } of list.entries) channel.push({ type: 'ADDED', key, object, revision: Number(object.metadata.resourceVersion) });
      if (opts.sendInitialEvents) channel.push({ type: 'INITIAL_EVENTS_END', revision: Number(list.resourceVersion) });
      from = Number(list.resourceVersion) + 1;
    } else {
      from = parseRevision(opts.resourceVersion) + 1;
    }
    const watch = this.kv.watch(prefix, prefixEnd(prefix), from, {
      events: (events) => {
        for (const e of events) {
          let item: StorageEvent | null;
          try {
            item = filterEvent(this.toStorageEvent(e), opts.predicate);
          } catch (err) {
            channel.fail(err as Error);
            return;
          }
          if (item && !channel.push(item)) return;
        }
      },
      progress: (revision) => channel.push({ type: 'PROGRESS', revision }),
      closed: (err) => channel.fail(err),
    });
    channel.requestProgress = () => watch.requestProgress();
    channel.onClose(() => watch.cancel());
    return channel;
  }
}

const LIST_EXPIRED = 'The resourceVersion for the provided list is too old.';
const CONTINUE_EXPIRED = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';
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

/** A no-op update writes nothing and keeps the resourceVersion, as in kube-apiserver. */
function sameContent(next: KubeObject, current: KubeObject): boolean {
  const rv = next.metadata.resourceVersion;
  next.metadata.resourceVersion = current.metadata.resourceVersion;
  try {
    return jsonEqual(next, current);
  } finally {
    next.metadata.resourceVersion = rv;
  }
}
