import { resourceAttributes } from '../auth/authorizer/attributes';
import { requestScope } from '../auth/request-scope';
import type { UserInfo } from '../auth/user';

export const CSR_GROUP = 'certificates.k8s.io';
export const CSRS = { group: CSR_GROUP, resource: 'certificatesigningrequests' };

/**
 * pkg/certauthorization IsAuthorizedForSignerName: the user may `verb` (approve, sign) the
 * `signers` resource named by the signer, or by its domain's wildcard (`kubernetes.io/*`). A write
 * kapi makes itself (no request scope: its signing controller) is not checked.
 */
export function authorizedForSigner(user: UserInfo, verb: string, signerName: string): boolean {
  const scope = requestScope();
  if (!scope) return true;
  const ask = (name: string): boolean =>
    scope.authorizer.authorize(resourceAttributes(user, verb, { apiGroup: CSR_GROUP, apiVersion: '*', resource: 'signers', name })).decision === 'Allow';
  return ask(signerName) || ask(`${signerName.split('/')[0]}/*`);
}
