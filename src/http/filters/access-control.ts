import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authorizer, RuleResolver } from '../../auth/authorizer/attributes';
import type { RbacAuthorizer } from '../../auth/authorizer/rbac';
import { runInRequestScope } from '../../auth/request-scope';
import type { UserInfo } from '../../auth/user';
import type { RequestInfo } from '../request-info';
import { beginAudit, type AuditFilterOptions, type RequestAudit } from './audit';
import { authorizeRequest, requestAttributes } from './authorization';
import { impersonationFilter } from './impersonation';

export interface AccessControl {
  authorizer: Authorizer & RuleResolver;
  rbac: RbacAuthorizer;
  /** The audit policy and log, when auditing is on. */
  audit: AuditFilterOptions | null;
  /** Who the request was authenticated as. */
  userOf(req: IncomingMessage): UserInfo;
}

/**
 * The filters between authentication and the handlers, in kube-apiserver's order: audit,
 * impersonation, authorization. `serve` runs in the request's scope (its effective user);
 * refusals go to `fail`. Returns the request's audit record, if it is audited.
 */
export function accessControlled(
  ac: AccessControl,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  /** The request target, parsed once by the app (Go's URL.Path and query). */
  target: { path: string; query: URLSearchParams },
  serve: () => void,
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
  runInRequestScope({ user, authorizer: ac.authorizer, rbac: ac.rbac, annotate }, serve);
  return audit;
}
