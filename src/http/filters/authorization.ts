import { StatusError } from '../../api/errors';
import { nonResourceAttributes, resourceAttributes, type AuthorizationAttributes, type Authorizer } from '../../auth/authorizer/attributes';
import { forbiddenError } from '../../auth/authorizer/forbidden';
import type { UserInfo } from '../../auth/user';
import { parseFieldSelector, type FieldSelector } from '../../api/field-selector';
import type { RequestInfo } from '../request-info';

export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

/**
 * RequestInfoFactory's name of a list or watch: a field selector asking for exactly one
 * metadata.name (a valid path segment), so that resourceNames rules apply to it. A selector that
 * does not parse names nothing.
 */
function selectedName(selector: FieldSelector): string {
  const name = selector.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value ?? '';
  return name === '.' || name === '..' || /[/%]/.test(name) ? '' : name;
}

/** The request's field selector, as authorizers see it (a selector that does not parse is none). */
function fieldSelectorOf(query: URLSearchParams): FieldSelector {
  try {
    return parseFieldSelector(query.get('fieldSelector') ?? '');
  } catch {
    return [];
  }
}

/** GetAuthorizerAttributes: the request as an authorizer sees it. */
export function requestAttributes(user: UserInfo, info: RequestInfo, query: URLSearchParams): AuthorizationAttributes {
  if (!info.isResourceRequest) return nonResourceAttributes(user, info.verb, info.path);
  const collection = info.verb === 'list' || info.verb === 'watch' || info.verb === 'deletecollection';
  const fieldSelector = collection ? fieldSelectorOf(query) : [];
  return resourceAttributes(user, info.verb, {
    apiGroup: info.group,
    apiVersion: info.version,
    namespace: info.namespace,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name || (info.verb === 'list' || info.verb === 'watch' ? selectedName(fieldSelector) : ''),
    ...(fieldSelector.length > 0 ? { fieldSelector } : {}),
  });
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
