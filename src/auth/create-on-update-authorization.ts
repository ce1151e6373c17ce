import { forbidden, internalError } from '../api/errors';
import { resourceAttributes } from './authorizer/attributes';
import { requestScope } from './request-scope';

export interface CreateOnUpdateTarget {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

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
