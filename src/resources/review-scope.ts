import { StatusError } from '../api/errors';
import { requestScope, type RequestScope } from '../auth/request-scope';

/**
 * The requester of a review: the request's scope (its user after impersonation and the
 * server's authorizer). Every request reaches the registry inside one; a review computed
 * outside a request has no one to answer for.
 */
export function reviewScope(): RequestScope {
  const scope = requestScope();
  if (!scope) throw new StatusError(500, 'InternalError', 'Internal error occurred: no user found for request', {});
  return scope;
}
