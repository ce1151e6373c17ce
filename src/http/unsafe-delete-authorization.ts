import { forbidden } from '../api/errors';
import type { GroupResource } from '../api/types';

export const UNSAFE_DELETE_VERB = 'unsafe-delete-ignore-read-errors';

/** What is asked of an authorizer: may the requester do `verb` on this object? */
export interface AuthorizationAttributes {
  verb: string;
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<{ allowed: boolean; reason: string }>;
}

/** The plain-HTTP port: every request acts as a cluster admin, so everything is allowed. */
export const insecurePortAuthorizer: Authorizer = {
  authorize: async () => ({ allowed: true, reason: 'the insecure port acts as a cluster admin' }),
};

/**
 * The extra check of an unsafe deletion (ignoreStoreReadErrorWithClusterBreakingPotential): the
 * requester needs the `unsafe-delete-ignore-read-errors` verb on the resource besides `delete`,
 * which the request itself was authorized for. Refusals read as kube-apiserver's.
 */
export async function authorizeUnsafeDelete(
  authorizer: Authorizer,
  target: Omit<AuthorizationAttributes, 'verb'>,
): Promise<void> {
  const gr: GroupResource = { group: target.group, resource: target.resource };
  let decision: { allowed: boolean; reason: string };
  try {
    decision = await authorizer.authorize({ ...target, verb: UNSAFE_DELETE_VERB });
  } catch (err) {
    throw forbidden(gr, target.name, `error while checking permission for "${UNSAFE_DELETE_VERB}", ${(err as Error).message}`);
  }
  if (!decision.allowed) throw forbidden(gr, target.name, `not permitted to do "${UNSAFE_DELETE_VERB}", reason: ${decision.reason}`);
}
