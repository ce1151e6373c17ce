import { forbidden, internalError } from '../api/errors';
import { resourceAttributes } from './authorizer/attributes';
import type { RequestAttributes } from '../registry/request-context';
import { requestScope } from './request-scope';

/** The object a PUT or apply would create, as the request names it. */
export type CreateOnUpdateTarget = Omit<RequestAttributes, 'verb'>;

/**
 * A PUT or a server-side apply that creates its object needs `create` besides the `update` or
 * `patch` the request was authorized for, as k8s.io/apiserver's update and patch handlers wrap
 * the create's validation in withAuthorization. Writes the server makes itself (no request scope)
 * are not checked.
 */
export function authorizeCreateOnUpdate(target: CreateOnUpdateTarget): void {
  const scope = requestScope();
  if (!scope) return;
  const attrs = resourceAttributes(scope.user, 'create', {
    apiGroup: target.group,
    apiVersion: target.version,
    resource: target.resource,
    subresource: target.subresource,
    namespace: target.namespace,
    name: target.name,
  });
  const result = scope.authorizer.authorize(attrs);
  if (result.decision === 'Allow') return;
  if (result.error) throw internalError(result.error);
  throw forbidden({ group: target.group, resource: target.resource }, target.name, result.reason);
}
