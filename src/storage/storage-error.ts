/** What storage throws; only the registry turns it into a StatusError. */
export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  | 'TooOld'
  | 'FutureRevision'
  | 'InvalidContinue'
  | 'Corrupt'
  | 'TooLarge'
  | 'CorruptList'
  /** etcd cannot be reached, or has no leader. */
  | 'Unavailable'
  /** etcd did not answer before the deadline (the caller's, or storage's own bound). */
  | 'Timeout'
  /** A watch cache is (re)initializing and could not serve in time. */
  | 'Initializing';

export class StorageError extends Error {
  /** For an expired chunked list: a token that continues at the latest revision. */
  continueToken?: string;
  /** Corrupt: kube-apiserver reports this one as a plain error (500 without a reason). */
  unreasoned?: boolean;
  /** CorruptList: each value that could not be read, by full etcd key. */
  corruptValues?: { key: string; message: string }[];
  /** CorruptList: more values could not be read than are listed. */
  truncated?: boolean;
  /** Initializing, FutureRevision: how long the client should wait before retrying. */
  retryAfterSeconds?: number;

  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly key = '',
    /** For KeyExists/Conflict: the object as it is now. */
    readonly current?: unknown,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
