import { resourceAttributes } from '../auth/authorizer/attributes';
import type { RequestContext } from '../registry/request-context';

export const CSR_GROUP = 'certificates.k8s.io';
export const CSRS = { group: CSR_GROUP, resource: 'certificatesigningrequests' };

/**
 * pkg/certauthorization IsAuthorizedForSignerName: the user may `verb` (approve, sign) the
 * `signers` resource named by the signer, or by its domain's wildcard (`kubernetes.io/*`), asked of the request's authorizer (kapi's signing controller
 * writes as system:apiserver, which its authorizer allows).
 */
export function authorizedForSigner(ctx: RequestContext, verb: string, signerName: string): boolean {
  const ask = (name: string): boolean =>
    ctx.authorizer.authorize(resourceAttributes(ctx.user, verb, { apiGroup: CSR_GROUP, apiVersion: '*', resource: 'signers', name })).decision === 'Allow';
  return ask(signerName) || ask(`${signerName.split('/')[0]}/*`);
}
