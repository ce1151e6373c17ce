import { noop } from 'cockatiel';
import { Etcd3, type IKeyValue, type IResponseOp, type IWatchResponse } from 'etcd3';
import type { KeyValue, KV, KvEvent, KvStatus, KvWatch, KvWatchHandlers, RangeOptions, RangeResult, WriteResult } from './kv';
import { StorageError } from '../storage-error';

/** TLS to etcd (--etcd-cafile, --etcd-certfile, --etcd-keyfile), as PEM. */
export interface EtcdTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface Etcd3KvOptions {
  /** scheme://host:port; https:// endpoints are dialled with TLS. */
  endpoints: string[];
  tls?: EtcdTls;
  /** Deadline for unary calls. */
  requestTimeoutMs?: number;
  /** Observes every unary call: operation, the key (or range start) it touched, seconds taken. */
  observe?: (operation: string, key: string, seconds: number) => void;
}

function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

/** Maps what the etcd client throws to StorageError. */
function translate(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (message.includes('required revision has been compacted')) return new StorageError('TooOld', message);
  if (message.includes('required revision is a future revision')) return new StorageError('FutureRevision', message);
  if (message.includes('request is too large')) return new StorageError('TooLarge', message);
  return new StorageError('Unavailable', message);
}

/** KV over the etcd3 client's raw gRPC services: every write is one guarded transaction. */
export class Etcd3Kv implements KV {
  private readonly client: Etcd3;
  private readonly timeoutMs: number;
  private readonly observe: (operation: string, key: string, seconds: number) => void;

  constructor(opts: Etcd3KvOptions) {
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.observe = opts.observe ?? (() => undefined);
    this.client = new Etcd3({
      // The client dials https:// hosts with TLS (and strips the scheme); all must agree.
      hosts: opts.endpoints,
      ...(opts.tls ? { credentials: { rootCertificate: opts.tls.ca as Buffer, privateKey: opts.tls.key, certChain: opts.tls.cert } } : {}),
      // A write whose reply was lost must not be sent again: its guard would then fail against itself.
      faultHandling: { global: noop },
      // Lists of many objects exceed gRPC's 4 MiB default; etcd itself bounds requests.
      grpcOptions: { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 },
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + this.timeoutMs }),
    });
  }

  private async call<T>(operation: string, key: string, fn: () => Promise<T>): Promise<T> {
    const start = process.hrtime.bigint();
    try {
      return await fn();
    } catch (err) {
      throw translate(err);
    } finally {
      this.observe(operation, key, Number(process.hrtime.bigint() - start) / 1e9);
    }
  }

  async get(key: string, revision?: number): Promise<{ kv: KeyValue | null; revision: number }> {
    const res = await this.call('get', key, () => this.client.kv.range({ key: Buffer.from(key), revision: revision || undefined }));
    return { kv: res.kvs.length > 0 ? toKeyValue(res.kvs[0]) : null, revision: Number(res.header.revision) };
  }

  async range(start: string, end: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const res = await this.call('list', start, () =>
      this.client.kv.range({
        key: Buffer.from(start),
        range_end: Buffer.from(end),
        revision: opts.revision || undefined,
        limit: opts.limit || undefined,
      }),
    );
    return {
      kvs: res.kvs.map(toKeyValue),
      revision: Number(res.header.revision),
      more: res.more,
      count: Number(res.count),
    };
  }

  async count(start: string, end: string): Promise<number> {
    const res = await this.call('count', start, () =>
      this.client.kv.range({ key: Buffer.from(start), range_end: Buffer.from(end), count_only: true }),
    );
    return Number(res.count);
  }

  private async guarded(operation: string, key: string, modRevision: number, write: IResponseOpRequest): Promise<WriteResult> {
    const keyBuf = Buffer.from(key);
    const res = await this.call(operation, key, () =>
      this.client.kv.txn({
        compare: [{ key: keyBuf, target: 'Mod', result: 'Equal', mod_revision: modRevision }],
        success: [write],
        failure: [{ request_range: { key: keyBuf } }],
      }),
    );
    const revision = Number(res.header.revision);
    const reply: IResponseOp = res.responses[0];
    if (!res.succeeded) {
      const kvs = reply.response_range.kvs;
      return { ok: false, current: kvs.length > 0 ? toKeyValue(kvs[0]) : null, revision };
    }
    const prev = reply.response_delete_range?.prev_kvs?.[0];
    return { ok: true, revision, ...(prev ? { previous: toKeyValue(prev) } : {}) };
  }

  create(key: string, value: Buffer): Promise<WriteResult> {
    return this.guarded('create', key, 0, { request_put: { key: Buffer.from(key), value } });
  }

  update(key: string, value: Buffer, modRevision: number): Promise<WriteResult> {
    return this.guarded('update', key, modRevision, { request_put: { key: Buffer.from(key), value } });
  }

  delete(key: string, modRevision: number): Promise<WriteResult> {
    return this.guarded('delete', key, modRevision, { request_delete_range: { key: Buffer.from(key), prev_kv: true } });
  }

  watch(start: string, end: string, fromRevision: number, handlers: KvWatchHandlers): KvWatch {
    return new Etcd3Watch(this.client, start, end, fromRevision, handlers);
  }

  async compact(revision: number): Promise<void> {
    await this.call('compact', '', () => this.client.kv.compact({ revision, physical: false }));
  }

  async status(): Promise<KvStatus> {
    const res = await this.call('status', '', () => this.client.maintenance.status());
    return { version: res.version, revision: Number(res.header.revision) };
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

type IResponseOpRequest = Parameters<Etcd3['kv']['txn']>[0]['success'] extends (infer R)[] | undefined ? R : never;

/** One watch on its own gRPC stream: closing it never disturbs another. */
class Etcd3Watch implements KvWatch {
  private stream: Awaited<ReturnType<Etcd3['watchClient']['watch']>> | null = null;
  private cancelled = false;
  private ended = false;

  constructor(
    client: Etcd3,
    start: string,
    end: string,
    fromRevision: number,
    private readonly handlers: KvWatchHandlers,
  ) {
    client.watchClient
      .watch()
      .then((stream) => {
        this.stream = stream;
        if (this.cancelled) {
          stream.cancel();
          return;
        }
        stream.on('data', (res: IWatchResponse) => this.onResponse(res));
        stream.on('error', (err: Error) => this.end(translate(err)));
        stream.on('end', () => this.end(new StorageError('Unavailable', 'etcd watch stream ended')));
        stream.write({
          create_request: {
            key: Buffer.from(start),
            range_end: Buffer.from(end),
            start_revision: fromRevision,
            progress_notify: true,
            prev_kv: true,
          },
        });
      })
      .catch((err: unknown) => this.end(translate(err)));
  }

  private onResponse(res: IWatchResponse): void {
    if (this.ended) return;
    if (res.canceled) {
      const compacted = Number(res.compact_revision);
      if (compacted > 0) this.end(new StorageError('TooOld', `required revision has been compacted (compacted at ${compacted})`), compacted);
      else this.end(new StorageError('Unavailable', `etcd canceled the watch: ${res.cancel_reason}`));
      return;
    }
    if (res.created && res.events.length === 0) return;
    if (res.events.length === 0) {
      this.handlers.progress(Number(res.header.revision));
      return;
    }
    const events: KvEvent[] = res.events.map((e) => ({
      type: e.type === 'Delete' ? 'delete' : 'put',
      kv: toKeyValue(e.kv),
      ...(e.prev_kv ? { prevKv: toKeyValue(e.prev_kv) } : {}),
    }));
    this.handlers.events(events, events[events.length - 1].kv.modRevision);
  }

  private end(err: Error, compactRevision?: number): void {
    if (this.ended) return;
    this.ended = true;
    this.stream?.cancel();
    if (!this.cancelled) this.handlers.closed(err, compactRevision);
  }

  requestProgress(): void {
    if (!this.ended) this.stream?.write({ progress_request: {} });
  }

  cancel(): void {
    this.cancelled = true;
    this.ended = true;
    this.stream?.cancel();
  }
}
