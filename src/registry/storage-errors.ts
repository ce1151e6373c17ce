import {
  alreadyExists,
  badRequest,
  conflict,
  internalError,
  notAStatus,
  notFound,
  resourceExpired,
  StatusError,
  timeout,
  tooManyRequests,
} from '../api/errors';
import { qualifiedResource, type GroupResource } from '../api/types';
import { isStorageError } from '../storage/storage-error';

/** The registry's one translation from storage failures to what clients see. */
export function interpretStorageError(err: unknown, gr: GroupResource, name: string, operation: string): unknown {
  if (!isStorageError(err)) return err;
  switch (err.code) {
    case 'KeyNotFound':
      return notFound(gr, name);
    case 'KeyExists':
      return alreadyExists(gr, name);
    case 'Conflict':
      return conflict(gr, name, err.message);
    case 'TooOld': {
      const e = resourceExpired(err.message);
      if (err.continueToken) e.status.metadata.continue = err.continueToken;
      return e;
    }
    case 'FutureRevision': {
      const e = timeout(err.message, err.retryAfterSeconds ?? 1);
      e.status.details!.causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
      return e;
    }
    case 'InvalidContinue':
      // storage.ValidateListOptions wraps DecodeContinue's error.
      return badRequest(`invalid continue token: ${err.message}`);
    case 'Corrupt': {
      if (!err.unreasoned) return internalError(err.message);
      // Not a Status inside kube-apiserver either.
      return notAStatus(err.message);
    }
    case 'CorruptList': {
      const causes = (err.corruptValues ?? []).map((c) => ({ reason: 'UnexpectedServerResponse', message: c.message, field: c.key }));
      if (err.truncated) causes.push({ reason: 'TooMany', message: 'too many errors, the list is truncated', field: '' });
      return new StatusError(500, 'StorageReadError', `failed to read one or more ${qualifiedResource(gr)} from the storage`, {
        name: 'list',
        ...(gr.group ? { group: gr.group } : {}),
        kind: gr.resource,
        causes: causes.map(({ field, ...rest }) => (field ? { ...rest, field } : rest)),
      });
    }
    case 'TooLarge':
      // etcd's own limit on a request (--max-request-bytes) is below kube-apiserver's body limit.
      return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: ${err.message}`);
    case 'Unavailable':
      // kube-apiserver's etcd client waits for a connection until the request's deadline, then
      // answers 504; kapi answers at once that etcd is unavailable (divergences.md).
      return new StatusError(
        503,
        'ServiceUnavailable',
        `The ${operation} operation against ${qualifiedResource(gr)} could not be completed at this time: etcd is unavailable (${err.message})`,
        { ...(name ? { name } : {}), ...(gr.group ? { group: gr.group } : {}), kind: gr.resource, retryAfterSeconds: 1 },
        { 'Retry-After': '1' },
      );
    case 'Timeout':
      // As kube-apiserver's finisher and etcd3 store answer a request whose context ran out.
      return timeout(err.message, 0);
    case 'Initializing':
      // As kube-apiserver's cacher answers while its watch cache is not ready.
      return tooManyRequests(err.message, err.retryAfterSeconds ?? 1);
  }
}
