import { forbidden, internalError } from '../api/errors';
import { resourceAttributes } from './authorizer/attributes';
import type { RequestAttributes, RequestContext } from '../registry/request-context';

/** The object a PUT or apply would create, as the request names it. */
export type CreateOnUpdateTarget = Omit<RequestAttributes, 'verb'>;

/**
 * A PUT or a server-side apply that creates its object needs `create` besides the `update` or
 * `patch` the request was authorized for, as k8s.io/apiserver's update and patch handlers wrap
 * the create's validation in withAuthorization; asked of the request's own authorizer.
 */
export function authorizeCreateOnUpdate(ctx: RequestContext, target: CreateOnUpdateTarget): void {
  const attrs = resourceAttributes(ctx.user, 'create', {
    apiGroup: target.group,
    apiVersion: target.version,
    resource: target.resource,
    subresource: target.subresource,
    namespace: target.namespace,
    name: target.name,
  });
  const result = ctx.authorizer.authorize(attrs);
  if (result.decision === 'Allow') return;
  if (result.error) throw internalError(result.error);
  throw forbidden({ group: target.group, resource: target.resource }, target.name, result.reason);
}
