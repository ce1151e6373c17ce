import type { KubeObject } from '../api/types';
import type { Preconditions } from './interfaces';
import { StorageError } from './storage-error';

/** Throws a Conflict StorageError when the object is not the one the client expects. */
export function checkPreconditions(key: string, current: KubeObject, pre: Preconditions | undefined): void {
  if (!pre) return;
  if (pre.uid && pre.uid !== current.metadata.uid) {
    throw new StorageError('Conflict', `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ''}`, key);
  }
  if (pre.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw new StorageError(
      'Conflict',
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
      key,
    );
  }
}
