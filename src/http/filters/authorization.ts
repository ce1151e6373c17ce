import { StatusError } from '../../api/errors';
import type { AuthorizationAttributes, Authorizer } from '../../auth/authorizer/attributes';
import { forbiddenError } from '../../auth/authorizer/forbidden';
import type { UserInfo } from '../../auth/user';
import type { RequestInfo } from '../request-info';

export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

/** GetAuthorizerAttributes: the request as an authorizer sees it. */
export function requestAttributes(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  if (!info.isResourceRequest) {
    return { user, verb: info.verb, resourceRequest: false, path: info.path, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  }
  return {
    user,
    verb: info.verb,
    resourceRequest: true,
    path: '',
    apiGroup: info.group,
    apiVersion: info.version,
    namespace: info.namespace,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

/**
 * filters.WithAuthorization: an Allow passes (even with an evaluation error); an error without
 * one is a 500; anything else is kube's 403. The decision and reason go to the audit event.
 */
export function authorizeRequest(authorizer: Authorizer, attrs: AuthorizationAttributes, annotate: (key: string, value: string) => void): void {
  const result = authorizer.authorize(attrs);
  if (result.decision === 'Allow') {
    annotate(DECISION_ANNOTATION, 'allow');
    annotate(REASON_ANNOTATION, result.reason);
    return;
  }
  if (result.error) {
    annotate(REASON_ANNOTATION, 'internal error');
    throw new StatusError(500, 'InternalError', `Internal error occurred: ${result.error}`, {});
  }
  annotate(DECISION_ANNOTATION, 'forbid');
  annotate(REASON_ANNOTATION, result.reason);
  throw forbiddenError(attrs, result.reason);
}
