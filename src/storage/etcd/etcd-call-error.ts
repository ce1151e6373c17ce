import { StorageError } from '../storage-error';

/**
 * What a failed etcd call means for retrying it:
 * - `compacted`, `future`, `tooLarge`, `permanent`: the answer; retrying changes nothing.
 * - `unsent`: the request never reached a member able to act on it (no connection, no leader,
 *   too many requests); safe to send again, writes included.
 * - `unknown`: the member may or may not have acted (timeout, dropped connection, leader change);
 *   safe to retry for reads, while a write must first find out whether it landed.
 */
export type EtcdFailure = 'compacted' | 'future' | 'tooLarge' | 'unsent' | 'unknown' | 'permanent';

// gRPC status codes (grpc/status.proto).
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;

/** Messages of etcd's and grpc-js's errors where the member certainly did not act, as etcd's client retries them (isSafeRetryMutableRPC). */
const UNSENT =
  /No connection established|ECONNREFUSED|etcdserver: no leader|etcdserver: too many requests|etcdserver: not capable|there is no (address|connection) available/i;
const UNKNOWN =
  /etcdserver: (request timed out|leader changed|server stopped)|Connection dropped|ECONNRESET|EPIPE|Deadline exceeded|socket hang up|GOAWAY|Call cancelled/i;

function codeOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'number') return code;
  const match = /^(\d+) [A-Z_]+:/.exec(err instanceof Error ? err.message : '');
  return match ? Number(match[1]) : undefined;
}

export function classifyEtcdError(err: unknown): EtcdFailure {
  const message = err instanceof Error ? err.message : String(err);
  if (message.includes('required revision has been compacted')) return 'compacted';
  if (message.includes('required revision is a future revision')) return 'future';
  if (message.includes('request is too large') || /larger than max/.test(message)) return 'tooLarge';
  if (UNSENT.test(message)) return 'unsent';
  const code = codeOf(err);
  if (code === RESOURCE_EXHAUSTED) return 'unsent';
  if (code === UNAVAILABLE || code === DEADLINE_EXCEEDED || UNKNOWN.test(message)) return 'unknown';
  // The etcd3 client's own wrappers of transport faults carry no code but name them.
  if (/GRPCUnavailable|GRPCDeadlineExceeded|GRPCConnectFailed|GRPCCancelled/.test((err as Error)?.constructor?.name ?? '')) return 'unknown';
  return 'permanent';
}

/** The StorageError a definitive failure maps to. */
export function storageErrorFor(kind: EtcdFailure, message: string): StorageError {
  switch (kind) {
    case 'compacted':
      return new StorageError('TooOld', message);
    case 'future':
      return new StorageError('FutureRevision', message);
    case 'tooLarge':
      return new StorageError('TooLarge', message);
    case 'unknown':
      return new StorageError(/deadline|timed out/i.test(message) ? 'Timeout' : 'Unavailable', message);
    default:
      return new StorageError('Unavailable', message);
  }
}
