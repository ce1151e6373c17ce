import { StatusError } from '../../api/errors';
import type { AuthorizationAttributes } from './attributes';

/** responsewriters.forbiddenMessage: who cannot do what, where. */
export function forbiddenMessage(attrs: AuthorizationAttributes): string {
  const user = JSON.stringify(attrs.user.name);
  if (!attrs.resourceRequest) return `User ${user} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const what = `User ${user} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)}`;
  return attrs.namespace ? `${what} in the namespace ${JSON.stringify(attrs.namespace)}` : `${what} at the cluster scope`;
}

/**
 * responsewriters.Forbidden: apierrors.NewForbidden of the request's group and resource, the
 * message followed by the authorizer's reason when it gave one.
 */
export function forbiddenError(attrs: AuthorizationAttributes, reason: string): StatusError {
  const cause = reason ? `${forbiddenMessage(attrs)}: ${reason}` : forbiddenMessage(attrs);
  return forbiddenStatus(attrs.apiGroup, attrs.resource, attrs.name, cause);
}

/** apierrors.NewForbidden, including its form for an empty resource (non-resource paths). */
export function forbiddenStatus(group: string, resource: string, name: string, cause: string): StatusError {
  const qualified = group && resource ? `${resource}.${group}` : resource;
  let message: string;
  if (!qualified) message = `forbidden: ${cause}`;
  else if (name) message = `${qualified} ${JSON.stringify(name)} is forbidden: ${cause}`;
  else message = `${qualified} is forbidden: ${cause}`;
  const details: Record<string, string> = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return new StatusError(403, 'Forbidden', message, details);
}
