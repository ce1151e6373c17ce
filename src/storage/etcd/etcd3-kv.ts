import { onAbort, type CallSignal } from '../../api/request-abort';
import { noop } from 'cockatiel';
import { sleep, systemClock, type Clock } from '../../api/clock';
import { Etcd3, type IKeyValue, type IResponseOp, type IWatchResponse } from 'etcd3';
import type {
  BatchedCreate,
  BatchWriter,
  KeyValue,
  KV,
  KvCallOptions,
  KvEvent,
  KvStatus,
  KvWatch,
  KvWatchHandlers,
  KvWriteOptions,
  RangeOptions,
  RangeResult,
  WriteResult,
} from './kv';
import { StorageError } from '../storage-error';
import { classifyEtcdError, storageErrorFor, type EtcdFailure } from './etcd-call-error';
import { FaultLog, type FaultLogSink } from '../fault-log';
import { ETCD_DEFAULT_MAX_TXN_OPS, transactionsOf } from './create-batch';

/** etcd's default --max-request-bytes (1.5 MiB). */
export const ETCD_DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/** TLS to etcd (--etcd-cafile, --etcd-certfile, --etcd-keyfile), as PEM. */
export interface EtcdTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface Etcd3KvOptions {
  /** scheme://host:port; https:// endpoints are dialled with TLS. */
  endpoints: string[];
  /** Deadline of one attempt of a call on one member; a member that misses it is avoided for a while. */
  attemptTimeoutMs?: number;
  /** How long a call keeps trying (other members, or the same one again) while etcd fails to answer. */
  retryWindowMs?: number;
  /** etcd's --max-request-bytes: larger writes are refused before they are sent. */
  maxRequestBytes?: number;
  tls?: EtcdTls;
  /** Observes every unary call: operation, the key (or range start) it touched, seconds taken. */
  observe?: (operation: string, key: string, seconds: number) => void;
  /** Where changes of a member's state (unreachable, back) are logged. */
  log?: FaultLogSink;
  /** Retry windows, backoffs and how long a failed member is avoided; the system's unless a test moves it. */
  clock?: Clock;
}

/** gRPC takes a call's deadline as a wall-clock instant and measures it itself: `ms` from now. */
function grpcDeadline(ms: number): number {
  return Date.now() + ms;
}

function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

const SUSPECT_MIN_MS = 1000;
const SUSPECT_MAX_MS = 30_000;

/**
 * One etcd member and its own client. kapi picks the member of each call itself (instead of the
 * etcd3 client's random choice behind per-host circuit breakers), so that a failed member is
 * avoided at once and a call is retried on another.
 */
class Member {
  suspectUntil = 0;
  private failures = 0;
  readonly client: Etcd3;
  readonly faults: FaultLog;

  constructor(
    readonly endpoint: string,
    log: FaultLogSink,
    tls: EtcdTls | undefined,
    private readonly clock: Clock,
  ) {
    this.faults = new FaultLog(log, `etcd member ${endpoint} is failing`, () => clock.now());
    this.client = new Etcd3({
      // The client dials https:// hosts with TLS (and strips the scheme).
      hosts: [endpoint],
      ...(tls ? { credentials: { rootCertificate: tls.ca as Buffer, privateKey: tls.key, certChain: tls.cert } } : {}),
      // No retries, no circuit breaker: see divergences.md, "Storage and etcd".
      faultHandling: { global: noop, host: () => noop },
      grpcOptions: {
        // Lists of many objects exceed gRPC's 4 MiB default; etcd itself bounds requests.
        'grpc.max_receive_message_length': -1,
        'grpc.max_send_message_length': -1,
        // A member that stops answering (paused, partitioned) breaks its watch streams; etcd
        // accepts pings every 5 s or more (--grpc-keepalive-min-time).
        'grpc.keepalive_time_ms': 10_000,
        'grpc.keepalive_timeout_ms': 5_000,
        // Reconnect soon after a member comes back (gRPC's default backoff grows to 2 min).
        'grpc.initial_reconnect_backoff_ms': 200,
        'grpc.max_reconnect_backoff_ms': 2_000,
      },
    });
  }

  get healthy(): boolean {
    return this.suspectUntil <= this.clock.now();
  }

  succeeded(): void {
    this.failures = 0;
    this.suspectUntil = 0;
    this.faults.recovered(`etcd member ${this.endpoint} answers again`);
  }

  failed(err: unknown): void {
    this.failures++;
    this.suspectUntil = this.clock.now() + Math.min(SUSPECT_MIN_MS * 2 ** (this.failures - 1), SUSPECT_MAX_MS);
    this.faults.failed(err instanceof Error ? err.message : String(err));
  }
}

/** Thrown by one attempt of a write whose outcome is unknown (the member may have applied it). */
class OutcomeUnknown extends Error {
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/** A call made, or retried, after close(). */
function closedError(): StorageError {
  return new StorageError('Unavailable', 'the etcd client is closed');
}

function abortError(): StorageError {
  return new StorageError('Timeout', 'request did not complete within requested timeout - context deadline exceeded');
}

/**
 * The calls in flight under each signal, rejected together when it aborts: one listener per signal
 * however many calls a request makes, since adding and removing an EventTarget listener per call
 * costs more than the rest of the wait.
 */
const pendingUnder = new WeakMap<CallSignal, Set<(err: Error) => void>>();

function pendingCalls(signal: CallSignal): Set<(err: Error) => void> {
  let pending = pendingUnder.get(signal);
  if (!pending) {
    const calls = (pending = new Set());
    pendingUnder.set(signal, calls);
    onAbort(signal, () => {
      for (const reject of calls) reject(abortError());
      calls.clear();
    });
  }
  return pending;
}

/** Settles with `promise`, or rejects at once when `signal` aborts (the call itself runs on to its deadline). */
function untilAborted<T>(promise: Promise<T>, signal?: CallSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError());
  const pending = pendingCalls(signal);
  return new Promise<T>((resolve, reject) => {
    pending.add(reject);
    promise.then(
      (v) => {
        pending.delete(reject);
        resolve(v);
      },
      (e: unknown) => {
        pending.delete(reject);
        reject(e);
      },
    );
  });
}

type TxnRequest = Parameters<Etcd3['kv']['txn']>[0];

/** A read of a key's latest value, waiting to go to etcd with the others of its turn. */
interface LatestRead {
  key: string;
  resolve: (result: { kv: KeyValue | null; revision: number }) => void;
  reject: (err: unknown) => void;
}
type IResponseOpRequest = TxnRequest['success'] extends (infer R)[] | undefined ? R : never;

/**
 * KV over etcd's gRPC API, one client per member. Every call is bounded (per attempt and in all)
 * and retried on another member when that is safe: reads always, writes when the request never
 * reached a member, and otherwise only after a read shows that the guarded write did not land.
 */
export class Etcd3Kv implements KV, BatchWriter {
  private readonly members: Member[];
  private next = 0;
  private readonly attemptTimeoutMs: number;
  private readonly retryWindowMs: number;
  private readonly maxRequestBytes: number;
  private readonly observe: (operation: string, key: string, seconds: number) => void;
  private readonly log: FaultLogSink;
  readonly clock: Clock;
  /** Watches whose stream broke and that have not resumed yet: logged as one condition. */
  private readonly brokenWatches = new Set<ResumingWatch>();
  private readonly watchFaults: FaultLog;
  private closed = false;
  /** Calls under way in run(): close() lets them finish, so that nothing this client sent reaches etcd after it closed. */
  private running = 0;
  private allDone: (() => void) | null = null;
  /** The reads of latest values waiting for the end of this turn (get). */
  private readonly latestReads: LatestRead[] = [];

  constructor(opts: Etcd3KvOptions) {
    this.attemptTimeoutMs = opts.attemptTimeoutMs ?? 3_000;
    this.retryWindowMs = opts.retryWindowMs ?? 10_000;
    this.maxRequestBytes = opts.maxRequestBytes ?? ETCD_DEFAULT_MAX_REQUEST_BYTES;
    this.observe = opts.observe ?? (() => undefined);
    this.log = opts.log ?? (() => undefined);
    this.clock = opts.clock ?? systemClock;
    this.watchFaults = new FaultLog(this.log, 'etcd watches broke; resuming each from its last revision', () => this.clock.now());
    this.members = opts.endpoints.map((e) => new Member(e, this.log, opts.tls, this.clock));
    if (this.members.length === 0) throw new Error('no etcd endpoints');
  }

  /** The next healthy member in turn; when none is, the one that has been avoided longest. */
  pickMember(): Member {
    const n = this.members.length;
    for (let i = 0; i < n; i++) {
      const m = this.members[(this.next + i) % n];
      if (m.healthy) {
        this.next = (this.next + i + 1) % n;
        return m;
      }
    }
    return this.members.reduce((a, b) => (b.suspectUntil < a.suspectUntil ? b : a));
  }

  /**
   * Runs `attempt` on members until it succeeds, fails for good, or the retry window (or the
   * caller's signal) ends. `write` attempts are retried only when the request was never sent; an
   * unknown outcome is thrown as OutcomeUnknown for the caller to resolve.
   */
  private async run<T>(
    operation: string,
    key: string,
    write: boolean,
    attempt: (client: Etcd3, deadline: number) => Promise<T>,
    signal: CallSignal | undefined,
    until = this.clock.now() + this.retryWindowMs,
  ): Promise<T> {
    // A call after close() would retry on a shut channel until its window ends.
    if (this.closed) throw closedError();
    const start = process.hrtime.bigint();
    const started = this.clock.now();
    this.running++;
    try {
      for (let tries = 0; ; tries++) {
        if (signal?.aborted) throw abortError();
        // After close() the attempt under way may end, but none starts again.
        if (tries > 0 && this.closed) throw closedError();
        const member = this.pickMember();
        const deadline = grpcDeadline(Math.min(this.attemptTimeoutMs, Math.max(until - this.clock.now(), 100)));
        let failure: EtcdFailure;
        try {
          const result = await untilAborted(attempt(member.client, deadline), signal);
          member.succeeded();
          return result;
        } catch (err) {
          if (err instanceof StorageError) throw err;
          failure = classifyEtcdError(err);
          const message = err instanceof Error ? err.message : String(err);
          if (failure !== 'unsent' && failure !== 'unknown') throw storageErrorFor(failure, message);
          member.failed(err);
          if (write && failure === 'unknown') throw new OutcomeUnknown(err);
          if (this.clock.now() >= until)
            throw storageErrorFor(failure, `etcd did not answer within ${Math.round((this.clock.now() - started) / 1000)}s: ${message}`);
        }
        await sleep(this.clock, Math.min(50 * 2 ** tries, 1000), signal);
      }
    } finally {
      if (--this.running === 0) this.allDone?.();
      this.observe(operation, key, Number(process.hrtime.bigint() - start) / 1e9);
    }
  }

  private read<T>(operation: string, key: string, attempt: (client: Etcd3, deadline: number) => Promise<T>, call?: KvCallOptions, until?: number): Promise<T> {
    return this.run(operation, key, false, attempt, call?.signal, until);
  }

  /**
   * A key's value. Reads of the latest revision made in one turn of the event loop go to etcd
   * together, as one read-only transaction (up to --max-txn-ops ranges): a gRPC call costs this
   * client about 260 µs of CPU, a range inside a transaction of 16 about 33 µs. Each is still a
   * linearizable read made after it was asked for; they share the revision they are read at.
   */
  get(key: string, revision?: number, call?: KvCallOptions): Promise<{ kv: KeyValue | null; revision: number }> {
    if (revision) return this.getOne(key, revision, call);
    return untilAborted(
      new Promise<{ kv: KeyValue | null; revision: number }>((resolve, reject) => {
        if (this.latestReads.length === 0) setImmediate(() => this.readLatest(this.latestReads.splice(0)));
        this.latestReads.push({ key, resolve, reject });
      }),
      call?.signal,
    );
  }

  private async getOne(key: string, revision: number | undefined, call?: KvCallOptions): Promise<{ kv: KeyValue | null; revision: number }> {
    const res = await this.read('get', key, (c, deadline) => c.kv.range({ key: Buffer.from(key), revision: revision || undefined }, { deadline }), call);
    return { kv: res.kvs.length > 0 ? toKeyValue(res.kvs[0]) : null, revision: Number(res.header.revision) };
  }

  private readLatest(reads: LatestRead[]): void {
    if (reads.length === 1) {
      const [{ key, resolve, reject }] = reads;
      this.getOne(key, undefined).then(resolve, reject);
      return;
    }
    for (let i = 0; i < reads.length; i += ETCD_DEFAULT_MAX_TXN_OPS) void this.readTogether(reads.slice(i, i + ETCD_DEFAULT_MAX_TXN_OPS));
  }

  private async readTogether(reads: LatestRead[]): Promise<void> {
    const start = process.hrtime.bigint();
    try {
      const res = await this.run(
        'get',
        reads[0].key,
        false,
        (c, deadline) => c.kv.txn({ compare: [], success: reads.map(({ key }) => ({ request_range: { key: Buffer.from(key) } })), failure: [] }, { deadline }),
        undefined,
      );
      const revision = Number(res.header.revision);
      reads.forEach((read, i) => {
        const kvs = res.responses[i]?.response_range?.kvs ?? [];
        read.resolve({ kv: kvs.length > 0 ? toKeyValue(kvs[0]) : null, revision });
      });
    } catch (err) {
      for (const read of reads) read.reject(err);
    } finally {
      // run counted the first; each read is one get in the storage metrics, as alone.
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      for (const read of reads.slice(1)) this.observe('get', read.key, seconds);
    }
  }

  async range(start: string, end: string, opts: RangeOptions = {}, call?: KvCallOptions): Promise<RangeResult> {
    const until = this.clock.now() + this.retryWindowMs;
    const res = await this.read(
      'list',
      start,
      (c, deadline) =>
        c.kv.range(
          { key: Buffer.from(start), range_end: Buffer.from(end), revision: opts.revision || undefined, limit: opts.limit || undefined },
          // A whole range (a cache's list of every object) may take longer than one attempt's bound:
          // it gets half the window, leaving the other half for a retry on another member.
          { deadline: opts.limit ? deadline : Math.max(deadline, grpcDeadline(Math.min(until - this.clock.now(), this.retryWindowMs / 2))) },
        ),
      call,
      until,
    );
    return { kvs: res.kvs.map(toKeyValue), revision: Number(res.header.revision), more: res.more, count: Number(res.count) };
  }

  async count(start: string, end: string, call?: KvCallOptions): Promise<number> {
    const res = await this.read(
      'count',
      start,
      (c, deadline) => c.kv.range({ key: Buffer.from(start), range_end: Buffer.from(end), count_only: true }, { deadline }),
      call,
    );
    return Number(res.count);
  }

  /**
   * etcd refuses a request over --max-request-bytes; refusing it here keeps it off the wire. The
   * txn carries the key three times (compare, write, read-back on failure) and some framing.
   */
  private checkSize(key: string, value: Buffer): void {
    const size = value.length + 3 * Buffer.byteLength(key) + 64;
    if (size > this.maxRequestBytes) {
      throw new StorageError(
        'TooLarge',
        `etcdserver: request is too large: the object needs ${size} bytes in etcd, over the limit of ${this.maxRequestBytes} bytes (etcd --max-request-bytes)`,
        key,
      );
    }
  }

  /**
   * One guarded transaction. When a member may or may not have applied it, a linearizable read
   * of the key decides: our value in place means it landed; the key untouched means it did not,
   * and it is sent again (a late duplicate of it then fails its own guard).
   */
  private async guarded(operation: string, key: string, modRevision: number, value: Buffer | null, call?: KvWriteOptions): Promise<WriteResult> {
    const keyBuf = Buffer.from(key);
    const lease = call?.lease ? { lease: call.lease } : {};
    const write: IResponseOpRequest = value ? { request_put: { key: keyBuf, value, ...lease } } : { request_delete_range: { key: keyBuf, prev_kv: true } };
    const until = this.clock.now() + this.retryWindowMs;
    for (;;) {
      let res;
      try {
        res = await this.run(
          operation,
          key,
          true,
          (c, deadline) =>
            c.kv.txn(
              {
                compare: [{ key: keyBuf, target: 'Mod', result: 'Equal', mod_revision: modRevision }],
                success: [write],
                failure: [{ request_range: { key: keyBuf } }],
              },
              { deadline },
            ),
          call?.signal,
          until,
        );
      } catch (err) {
        if (!(err instanceof OutcomeUnknown)) throw err;
        const outcome = await this.outcomeOf(key, modRevision, value, call, until);
        if (outcome) return outcome;
        if (this.clock.now() >= until)
          throw storageErrorFor(classifyEtcdError(err.original), `etcd did not answer within ${this.retryWindowMs / 1000}s: ${err.message}`);
        continue;
      }
      const revision = Number(res.header.revision);
      const reply: IResponseOp = res.responses[0];
      if (!res.succeeded) {
        const kvs = reply.response_range.kvs;
        return { ok: false, current: kvs.length > 0 ? toKeyValue(kvs[0]) : null, revision };
      }
      const prev = reply.response_delete_range?.prev_kvs?.[0];
      return { ok: true, revision, ...(prev ? { previous: toKeyValue(prev) } : {}) };
    }
  }

  /** What became of a write whose answer was lost; null when it did not land. */
  private async outcomeOf(key: string, modRevision: number, value: Buffer | null, call: KvCallOptions | undefined, until: number): Promise<WriteResult | null> {
    // Within the write's window, but with room for one attempt, so a write near its end is still resolved.
    const res = await this.run(
      'get',
      key,
      false,
      (c, deadline) => c.kv.range({ key: Buffer.from(key) }, { deadline }),
      call?.signal,
      Math.max(until, this.clock.now() + this.attemptTimeoutMs),
    );
    const kv = res.kvs.length > 0 ? toKeyValue(res.kvs[0]) : null;
    const revision = Number(res.header.revision);
    if (value === null) {
      if (!kv) return { ok: true, revision };
      return kv.modRevision === modRevision ? null : { ok: false, current: kv, revision };
    }
    if (kv && kv.modRevision !== modRevision && kv.value.equals(value)) return { ok: true, revision: kv.modRevision };
    if (modRevision === 0 ? !kv : kv?.modRevision === modRevision) return null;
    return { ok: false, current: kv, revision };
  }

  create(key: string, value: Buffer, call?: KvWriteOptions): Promise<WriteResult> {
    this.checkSize(key, value);
    if (call?.batch && !call.lease) return call.batch.join(this, key, value);
    return this.guarded('create', key, 0, value, call);
  }

  /** A batch's creates (CreateBatch), in as few transactions as etcd takes, one after another. */
  async createBatched(creates: BatchedCreate[]): Promise<void> {
    for (const txn of transactionsOf(creates, this.maxRequestBytes)) await this.createTogether(txn);
  }

  /**
   * One transaction that writes every key when none exists. When one does, nothing is written and
   * each create is sent alone, so that exactly the existing keys fail; when the outcome is unknown,
   * each is resolved as a lone create's would be (guarded's read of the key).
   */
  private async createTogether(creates: BatchedCreate[]): Promise<void> {
    const alone = (create: BatchedCreate, outcome: Promise<WriteResult | null>): void => {
      outcome.then((result) => result ?? this.guarded('create', create.key, 0, create.value)).then(create.resolve, create.reject);
    };
    const until = this.clock.now() + this.retryWindowMs;
    let res;
    try {
      res = await this.run(
        'create',
        creates[0].key,
        true,
        (c, deadline) =>
          c.kv.txn(
            {
              compare: creates.map(({ key }) => ({ key: Buffer.from(key), target: 'Mod', result: 'Equal', mod_revision: 0 })),
              success: creates.map(({ key, value }) => ({ request_put: { key: Buffer.from(key), value } })),
              failure: [],
            },
            { deadline },
          ),
        undefined,
        until,
      );
    } catch (err) {
      for (const create of creates)
        alone(create, err instanceof OutcomeUnknown ? this.outcomeOf(create.key, 0, create.value, undefined, until) : Promise.resolve(null));
      return;
    }
    if (!res.succeeded) {
      for (const create of creates) alone(create, Promise.resolve(null));
      return;
    }
    const revision = Number(res.header.revision);
    for (const create of creates) create.resolve({ ok: true, revision });
  }

  update(key: string, value: Buffer, modRevision: number, call?: KvWriteOptions): Promise<WriteResult> {
    this.checkSize(key, value);
    return this.guarded('update', key, modRevision, value, call);
  }

  delete(key: string, modRevision: number, call?: KvCallOptions): Promise<WriteResult> {
    return this.guarded('delete', key, modRevision, null, call);
  }

  watchBroke(watch: ResumingWatch, err: Error): void {
    this.brokenWatches.add(watch);
    this.watchFaults.failed(err.message);
  }

  watchResumed(watch: ResumingWatch): void {
    if (!this.brokenWatches.delete(watch) || this.brokenWatches.size > 0) return;
    this.watchFaults.recovered('etcd watches resumed');
  }

  watch(start: string, end: string, fromRevision: number, handlers: KvWatchHandlers): KvWatch {
    return new ResumingWatch(this, start, end, fromRevision, handlers);
  }

  async grantLease(ttlSeconds: number, call?: KvCallOptions): Promise<string> {
    // A grant that may have landed is simply repeated: an unused lease expires on its own.
    const res = await this.read('grant', '', (c, deadline) => c.leaseClient.leaseGrant({ TTL: ttlSeconds }, { deadline }), call);
    return String(res.ID);
  }

  async compact(revision: number): Promise<void> {
    await this.run('compact', '', false, (c, deadline) => c.kv.compact({ revision, physical: false }, { deadline }), undefined);
  }

  async status(): Promise<KvStatus> {
    const res = await this.read('status', '', (c, deadline) => c.maintenance.status({ deadline }));
    return { version: res.version, revision: Number(res.header.revision) };
  }

  /**
   * A linearizable read needs the leader (etcd's ReadIndex), so it answering proves the cluster
   * has one, as kube-apiserver's etcd readiness check does with a Get of a health key.
   */
  async checkHealth(key: string, timeoutMs: number): Promise<void> {
    const until = this.clock.now() + timeoutMs;
    await this.read(
      'health',
      key,
      (c, deadline) => c.kv.range({ key: Buffer.from(key), count_only: true }, { deadline: Math.min(deadline, grpcDeadline(until - this.clock.now())) }),
      undefined,
      until,
    );
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Closes the connections once the calls under way have ended (each attempt has its deadline):
   * a caller that removes the server's keys after close() (the testing library's stop) must not
   * see a write that was still on its way land after the removal.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running > 0) await new Promise<void>((resolve) => (this.allDone = resolve));
    for (const m of this.members) m.client.close();
  }
}

const WATCH_RETRY_MIN_MS = 100;
const WATCH_RETRY_MAX_MS = 2_000;

/**
 * One etcd watch, on its own gRPC stream, that survives the loss of its member: it resumes from
 * the revision after the last one delivered, on another member. Only a compacted revision (or a
 * cancel) ends it.
 */
class ResumingWatch implements KvWatch {
  private stream: Awaited<ReturnType<Etcd3['watchClient']['watch']>> | null = null;
  private cancelled = false;
  private ended = false;
  /** The revision to resume from: one past everything delivered. */
  private from: number;
  private failures = 0;

  constructor(
    private readonly kv: Etcd3Kv,
    private readonly start: string,
    private readonly end: string,
    fromRevision: number,
    private readonly handlers: KvWatchHandlers,
  ) {
    this.from = fromRevision;
    this.open();
  }

  private open(): void {
    if (this.ended) return;
    const member = this.kv.pickMember();
    member.client.watchClient
      .watch()
      .then((stream) => {
        if (this.ended) {
          stream.cancel();
          return;
        }
        this.stream = stream;
        stream.on('data', (res: IWatchResponse) => {
          if (this.stream !== stream) return;
          this.failures = 0;
          this.kv.watchResumed(this);
          this.onResponse(res);
        });
        const broken = (err: Error): void => {
          if (this.stream !== stream) return;
          this.stream = null;
          stream.cancel();
          member.failed(err);
          this.resume(err);
        };
        stream.on('error', broken);
        stream.on('end', () => broken(new Error('etcd watch stream ended')));
        stream.write({
          create_request: {
            key: Buffer.from(this.start),
            range_end: Buffer.from(this.end),
            start_revision: this.from,
            progress_notify: true,
            prev_kv: true,
          },
        });
      })
      .catch((err: unknown) => {
        member.failed(err);
        this.resume(err instanceof Error ? err : new Error(String(err)));
      });
  }

  private resume(err: Error): void {
    if (this.ended || this.kv.isClosed) return;
    const kind = classifyEtcdError(err);
    if (kind === 'compacted') {
      this.finish(new StorageError('TooOld', err.message));
      return;
    }
    this.kv.watchBroke(this, err);
    const wait = Math.min(WATCH_RETRY_MIN_MS * 2 ** this.failures++, WATCH_RETRY_MAX_MS);
    this.kv.clock.after(wait, () => this.open());
  }

  private onResponse(res: IWatchResponse): void {
    if (this.ended) return;
    if (res.canceled) {
      const compacted = Number(res.compact_revision);
      if (compacted > 0) {
        this.finish(new StorageError('TooOld', `required revision has been compacted (compacted at ${compacted})`), compacted);
        return;
      }
      // Canceled for another reason (e.g. the member lost its leader): resume elsewhere.
      this.stream?.cancel();
      this.stream = null;
      this.resume(new Error(`etcd canceled the watch: ${res.cancel_reason}`));
      return;
    }
    if (res.created && res.events.length === 0) return;
    if (res.events.length === 0) {
      const revision = Number(res.header.revision);
      if (revision >= this.from) this.from = revision + 1;
      this.handlers.progress(revision);
      return;
    }
    const events: KvEvent[] = res.events.map((e) => ({
      type: e.type === 'Delete' ? 'delete' : 'put',
      kv: toKeyValue(e.kv),
      ...(e.prev_kv ? { prevKv: toKeyValue(e.prev_kv) } : {}),
    }));
    const last = events[events.length - 1].kv.modRevision;
    this.from = last + 1;
    this.handlers.events(events, last);
  }

  private finish(err: Error, compactRevision?: number): void {
    if (this.ended) return;
    this.ended = true;
    this.kv.watchResumed(this);
    this.stream?.cancel();
    this.stream = null;
    if (!this.cancelled) this.handlers.closed(err, compactRevision);
  }

  requestProgress(): void {
    if (!this.ended) this.stream?.write({ progress_request: {} });
  }

  cancel(): void {
    this.cancelled = true;
    this.ended = true;
    this.kv.watchResumed(this);
    this.stream?.cancel();
    this.stream = null;
  }
}
