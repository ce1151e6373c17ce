import {
  alreadyExists,
  badRequest,
  conflict,
  internalError,
  notFound,
  resourceExpired,
  StatusError,
  timeout,
} from '../api/errors';
import type { GroupResource } from '../api/types';
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
      const e = timeout(err.message, 1);
      e.status.details!.causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
      return e;
    }
    case 'InvalidContinue':
      return badRequest(err.message);
    case 'Corrupt':
      return internalError(err.message);
    case 'TooLarge':
      // etcd's own limit on a request (--max-request-bytes) is below kube-apiserver's body limit.
      return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: ${err.message}`);
    case 'Unavailable':
      return new StatusError(
        500,
        'ServerTimeout',
        `The ${operation} operation against ${gr.group ? `${gr.resource}.${gr.group}` : gr.resource} could not be completed at this time, please try again.`,
        { ...(name ? { name } : {}), ...(gr.group ? { group: gr.group } : {}), kind: gr.resource, retryAfterSeconds: 2 },
      );
  }
}
