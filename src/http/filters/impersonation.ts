import type { IncomingMessage } from 'node:http';
import type { Authorizer } from '../../auth/authorizer/attributes';
import { impersonate, wantsImpersonation } from '../../auth/impersonation';
import type { UserInfo } from '../../auth/user';

const IMPERSONATION_HEADER = /^impersonate-/;

/**
 * filters.WithImpersonation: the user the request acts as. Impersonation headers are checked
 * (403 when a permission is missing) and removed, so nothing below sees them.
 */
export function impersonationFilter(req: IncomingMessage, requestor: UserInfo, authorizer: Authorizer): UserInfo | null {
  if (!wantsImpersonation(req.headers)) return null;
  const user = impersonate(requestor, req.headersDistinct, authorizer);
  for (const name of Object.keys(req.headers)) if (IMPERSONATION_HEADER.test(name)) delete req.headers[name];
  return user;
}
