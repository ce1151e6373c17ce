import { forbidden, internalError } from '../api/errors';
import { resourceAttributes } from './authorizer/attributes';
import type { RequestAttributes, RequestContext } from '../registry/request-context';

/** The object a request would also create, as the request names it. */
export type CreateTarget = Omit<RequestAttributes, 'verb'>;

/**
 * A request that was authorized for another verb but also creates needs `create` too, asked of
 * the request's own authorizer: a PUT or a server-side apply that creates its object (kube's
 * update and patch handlers wrap the create's validation in withAuthorization), and a WebSocket
 * GET of pods/exec, attach or portforward (ensureAuthorizedForVerb, AuthorizePodWebsocketUpgradeCreatePermission).
 * A refusal is kube's NewForbidden with the authorizer's reason.
 */
export function authorizeCreateToo(ctx: RequestContext, target: CreateTarget): void {
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
