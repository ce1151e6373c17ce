import type { CallSignal } from '../../api/request-abort';
/** The narrow view of etcd that storage needs: a handful of shapes, nothing else. */

export interface KeyValue {
  key: string;
  value: Buffer;
  createRevision: number;
  modRevision: number;
}

export interface RangeResult {
  kvs: KeyValue[];
  /** The store revision the range was read at. */
  revision: number;
  /** More keys exist past the limit. */
  more: boolean;
  /** Keys in the whole range (ignores the limit). */
  count: number;
}

export interface RangeOptions {
  /** Read at this revision; 0 or absent reads the latest. */
  revision?: number;
  limit?: number;
}

export type WriteResult = { ok: true; revision: number; previous?: KeyValue } | { ok: false; current: KeyValue | null; revision: number };

export interface KvEvent {
  type: 'put' | 'delete';
  kv: KeyValue;
  prevKv?: KeyValue;
}

export interface KvWatchHandlers {
  /** Events of one revision or more, in order. */
  events(events: KvEvent[], revision: number): void;
  /** Nothing happened under the prefix up to `revision`. */
  progress(revision: number): void;
  /** The watch ended and will not resume; `compactRevision` is set when history was compacted away. */
  closed(err: Error, compactRevision?: number): void;
}

export interface KvWatch {
  /** Asks etcd for a progress notification for this watch (answered through `progress`). */
  requestProgress(): void;
  cancel(): void;
}

export interface KvStatus {
  version: string;
  revision: number;
}

/** Per call: the caller's deadline or cancellation (e.g. the request's). */
export interface KvCallOptions {
  signal?: CallSignal;
}

/** A write's options: its call's, and the etcd lease (a decimal ID) the key is attached to, so etcd removes it when the lease expires. */
export interface KvWriteOptions extends KvCallOptions {
  lease?: string;
  /** A create may share a transaction with the batch's others (create-batch.ts); writes with a lease never do. */
  batch?: KvCreateBatch;
}

/** A create waiting for its batch's transaction. */
export interface BatchedCreate {
  key: string;
  value: Buffer;
  resolve(result: WriteResult): void;
  reject(err: unknown): void;
}

/** A KV that can write a batch's creates together (Etcd3Kv). */
export interface BatchWriter {
  createBatched(creates: BatchedCreate[]): Promise<void>;
}

/** What a KV asks of a batch: to hold a create until the batch's creates go out together. */
export interface KvCreateBatch {
  join(writer: BatchWriter, key: string, value: Buffer): Promise<WriteResult>;
}

export interface KV {
  get(key: string, revision?: number, call?: KvCallOptions): Promise<{ kv: KeyValue | null; revision: number }>;
  /** Keys in [start, end), ascending. */
  range(start: string, end: string, opts?: RangeOptions, call?: KvCallOptions): Promise<RangeResult>;
  count(start: string, end: string, call?: KvCallOptions): Promise<number>;
  /** Writes only if the key is absent. */
  create(key: string, value: Buffer, call?: KvWriteOptions): Promise<WriteResult>;
  /** Writes only if the key's mod revision is still `modRevision`. */
  update(key: string, value: Buffer, modRevision: number, call?: KvWriteOptions): Promise<WriteResult>;
  /** Deletes only if the key's mod revision is still `modRevision`. */
  delete(key: string, modRevision: number, call?: KvCallOptions): Promise<WriteResult>;
  /** Watches [start, end) from `fromRevision` (inclusive), with progress notifications. */
  watch(start: string, end: string, fromRevision: number, handlers: KvWatchHandlers): KvWatch;
  /** Grants a lease of `ttlSeconds`; resolves with its ID. */
  grantLease(ttlSeconds: number, call?: KvCallOptions): Promise<string>;
  compact(revision: number): Promise<void>;
  status(): Promise<KvStatus>;
  /** Resolves when the cluster has a leader and answers a linearizable read within `timeoutMs`. */
  checkHealth(key: string, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** The end of the range holding every key that starts with `prefix` (keys are ASCII). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
