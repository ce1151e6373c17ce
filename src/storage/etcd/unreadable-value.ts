import { StorageError } from '../storage-error';

/** Why a stored value could not be read: decryption (transform) or decoding failed. */
export class UnreadableValue extends Error {
  constructor(
    readonly key: string,
    readonly stage: 'untransformable' | 'undecodable',
    readonly detail: string,
    /** The mod revision for a decode failure; 0 for a transform failure, as kube-apiserver reports it. */
    readonly revision: number,
  ) {
    super(`${stage === 'untransformable' ? 'data from the storage is not transformable' : 'object not decodable'} revision=${revision}: ${detail}`);
    this.name = 'UnreadableValue';
  }
}

/** Kube-apiserver lists at most this many unreadable values before it gives up on a list. */
export const MAX_LISTED_UNREADABLE = 100;

/** storage.StorageError's text for a corrupt object (error code 7). */
function corruptObjectText(key: string, cause: UnreadableValue): string {
  return `StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${cause.message}`;
}

/**
 * A value that cannot be read, as a read of one object reports it. With the
 * AllowUnsafeMalformedObjectDeletion gate, kube-apiserver names it a corrupt object under the key
 * relative to the etcd prefix; without, it passes the underlying error on.
 */
export function unreadableObjectError(cause: UnreadableValue, relativeKey: string, unsafeDeletionGate: boolean): StorageError {
  if (unsafeDeletionGate) return new StorageError('Corrupt', corruptObjectText(relativeKey, cause), cause.key);
  const err = new StorageError('Corrupt', cause.detail, cause.key);
  err.unreasoned = cause.stage === 'undecodable';
  return err;
}

/**
 * Unreadable values met by a list. Without the gate the first one fails the list; with it, up to
 * MAX_LISTED_UNREADABLE are collected and the list fails naming each of them.
 */
export function unreadableListError(causes: UnreadableValue[], truncated: boolean, unsafeDeletionGate: boolean): StorageError {
  if (!unsafeDeletionGate) {
    const first = causes[0];
    if (first.stage === 'undecodable') return unreadableObjectError(first, first.key, false);
    return new StorageError('Corrupt', `unable to transform key ${JSON.stringify(first.key)}: ${first.detail}`, first.key);
  }
  const err = new StorageError('CorruptList', `unable to transform or decode ${causes.length} objects`);
  err.corruptValues = causes.map((c) => ({ key: c.key, message: corruptObjectText(c.key, c) }));
  err.truncated = truncated;
  return err;
}
