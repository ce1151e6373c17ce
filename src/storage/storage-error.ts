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
  | 'Unavailable';

export class StorageError extends Error {
  /** For an expired chunked list: a token that continues at the latest revision. */
  continueToken?: string;

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
