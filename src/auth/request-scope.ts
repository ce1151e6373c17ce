import { AsyncLocalStorage } from 'node:async_hooks';
import type { Authorizer, RuleResolver } from './authorizer/attributes';
import type { RbacAuthorizer } from './authorizer/rbac';
import type { UserInfo } from './user';

/**
 * What the layers below the HTTP filters learn about who is asking, as Go's request context
 * carries it (request.UserFrom): the user after impersonation, and the authorizer that decided,
 * for checks made inside the registry (escalation, unsafe deletion) and the review APIs. Writes
 * made by the server itself (controllers, bootstrap policy) run outside any request scope.
 */
export interface RequestScope {
  user: UserInfo;
  authorizer: Authorizer & RuleResolver;
  /** RBAC's rule resolver, which escalation prevention reads whatever the authorization modes. */
  rbac: RbacAuthorizer;
  /** Audit annotations the request adds (authorization.k8s.io/decision, ...). */
  annotate(key: string, value: string): void;
}

const scopes = new AsyncLocalStorage<RequestScope>();

export function runInRequestScope<T>(scope: RequestScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

export function requestScope(): RequestScope | undefined {
  return scopes.getStore();
}
