import { forbidden } from '../api/errors';
import type { GroupResource } from '../api/types';
import { resourceAttributes } from './authorizer/attributes';
import type { RequestContext } from '../registry/request-context';

export const UNSAFE_DELETE_VERB = 'unsafe-delete-ignore-read-errors';

export interface UnsafeDeleteTarget {
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
}

/**
 * The extra check of an unsafe deletion (ignoreStoreReadErrorWithClusterBreakingPotential), as
 * k8s.io/apiserver's authorizeUnsafeDelete: the requester needs the `unsafe-delete-ignore-read-errors`
 * verb on the object besides `delete`, which the request itself was authorized for.
 */
export function authorizeUnsafeDelete(ctx: RequestContext, target: UnsafeDeleteTarget): void {
  const gr: GroupResource = { group: target.group, resource: target.resource };
  const attrs = resourceAttributes(ctx.user, UNSAFE_DELETE_VERB, {
    apiGroup: target.group,
    apiVersion: target.version,
    resource: target.resource,
    namespace: target.namespace,
    name: target.name,
  });
  const result = ctx.authorizer.authorize(attrs);
  if (result.decision === 'Allow') return;
  if (result.error) throw forbidden(gr, target.name, `error while checking permission for "${UNSAFE_DELETE_VERB}", ${result.error}`);
  throw forbidden(gr, target.name, `not permitted to do "${UNSAFE_DELETE_VERB}", reason: ${result.reason}`);
}
