import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestAuthorizer } from '../../auth/authorizer/attributes';
import type { UserInfo } from '../../auth/user';
import type { RequestInfo } from '../request-info';
import { beginAudit, type AuditFilterOptions, type RequestAudit } from './audit';
import { authorizeRequest, requestAttributes } from './authorization';
import { impersonationFilter } from './impersonation';

export interface AccessControl {
  authorizer: RequestAuthorizer;
  /** The audit policy and log, when auditing is on. */
  audit: AuditFilterOptions | null;
  /** Who the request was authenticated as. */
  userOf(req: IncomingMessage): UserInfo;
}

/** What the filters established about an authorized request: who it acts as, and where its audit annotations go. */
export interface AuthorizedRequest {
  /** The effective user, after impersonation. */
  user: UserInfo;
  annotate(key: string, value: string): void;
}

/**
 * The filters between authentication and the handlers, in kube-apiserver's order: audit,
 * impersonation, authorization. `serve` is handed the effective user explicitly; refusals go to
 * `fail`. Returns the request's audit record, if it is audited.
 */
export function accessControlled(
  ac: AccessControl,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  /** The request target, parsed once by the app (Go's URL.Path and query). */
  target: { path: string; query: URLSearchParams },
  serve: (authorized: AuthorizedRequest) => void,
  fail: (err: unknown) => void,
): RequestAudit | null {
  const authenticated = ac.userOf(req);
  const audit = ac.audit ? beginAudit(ac.audit, req, res, info, target.path, authenticated) : null;
  const annotate = (key: string, value: string): void => audit?.annotate(key, value);
  let user = authenticated;
  try {
    const impersonated = impersonationFilter(req, authenticated, ac.authorizer);
    if (impersonated) {
      user = impersonated;
      audit?.impersonated(impersonated);
    }
    authorizeRequest(ac.authorizer, requestAttributes(user, info, target.query), annotate);
  } catch (err) {
    fail(err);
    return audit;
  }
  serve({ user, annotate });
  return audit;
}
