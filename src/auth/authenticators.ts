import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { connectionVerifier, type CertificatePool } from './client-chain';
import { handshakePeerOf, type HandshakePeer } from './handshake-peer';
import { authenticateServiceAccountToken, type ObjectLookup } from './service-account-authenticator';
import type { ServiceAccountTokens } from './service-account-tokens';
import type { UserInfo } from './user';
import { certificateSubject, subjectNames, type SubjectNames } from './x509-name';

/**
 * The authenticators of k8s.io/apiserver, as functions: each answers with a user, an error (the
 * credentials are its kind but bad), or null (not its kind of credentials).
 */
export type Authentication = { user: UserInfo; audiences?: string[] } | { error: string } | null;

export type TokenAuthenticator = (token: string, audiences: string[]) => Promise<Authentication>;
export type RequestAuthenticator = (req: IncomingMessage) => Promise<Authentication>;

export const ANONYMOUS_USER: UserInfo = { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} };
const ALL_AUTHENTICATED = 'system:authenticated';
const ALL_UNAUTHENTICATED = 'system:unauthenticated';

/** union.New: the first user wins; when none, the errors of all, or null when none had an error. */
function union<A extends unknown[]>(authenticators: ((...args: A) => Promise<Authentication>)[]): (...args: A) => Promise<Authentication> {
  return async (...args) => {
    const errors: string[] = [];
    for (const authenticate of authenticators) {
      const result = await authenticate(...args);
      if (result && 'user' in result) return result;
      if (result) errors.push(result.error);
    }
    // utilerrors.NewAggregate prints one error as itself and several as [a, b].
    if (errors.length === 0) return null;
    return { error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
  };
}

/** --token-auth-file users. */
export function staticTokenAuthenticator(users: Map<string, UserInfo>): TokenAuthenticator {
  return async (token) => {
    const user = users.get(token);
    return user ? { user } : null;
  };
}

/** Service account tokens with this cluster's issuer (others are not its to judge). */
export function serviceAccountTokenAuthenticator(tokens: ServiceAccountTokens, lookup: ObjectLookup): TokenAuthenticator {
  return async (token, audiences) => (tokens.hasIssuer(token) ? authenticateServiceAccountToken(tokens, lookup, token, audiences) : null);
}

/**
 * WrapAudienceAgnosticToken: an authenticator whose tokens name no audience (static tokens) is
 * asked only when the audiences sought meet the API server's, and answers for those it shares,
 * so a token review for another service's audience never accepts an API token.
 */
export function audienceAgnostic(apiAudiences: string[], authenticate: TokenAuthenticator): TokenAuthenticator {
  return async (token, audiences) => {
    const shared = apiAudiences.filter((a) => audiences.includes(a));
    if (shared.length === 0) return null;
    const result = await authenticate(token, audiences);
    return result && 'user' in result ? { user: result.user, audiences: shared } : result;
  };
}

export const tokenUnion = (authenticators: TokenAuthenticator[]): TokenAuthenticator => union(authenticators);

/** How kube names a certificate in its errors (certificateIdentifier). */
const certificateIdentifier = (peer: HandshakePeer): string => `SN=${BigInt(`0x${peer.leaf.serialNumber}`)}, SKID=, AKID=`;

/**
 * A connection's client certificate verified against one pool (kube's x509 verifier, each
 * authenticator with its own roots), and also by the listener's handshake (which catches what
 * Go's Verify refuses beyond the chain, such as unknown critical extensions); null when the
 * connection presented no certificate.
 */
function verifiedPeer(roots: () => CertificatePool): (req: IncomingMessage) => { peer: HandshakePeer; error?: string } | null {
  const verify = connectionVerifier(roots);
  return (req) => {
    const peer = handshakePeerOf(req.socket);
    if (!peer) return null;
    const result = verify(peer);
    if ('error' in result) return { peer, error: result.error };
    if (!peer.authorized) return { peer, error: peer.authorizationError };
    return { peer };
  };
}

/** The subject's user and groups as Go reads a certificate's (a string type it cannot read makes the certificate unusable). */
function certificateNames(peer: HandshakePeer): SubjectNames | { error: string } {
  try {
    return subjectNames(certificateSubject(peer.leaf.raw), 'reject');
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * x509.Authenticator with CommonNameUserConversion: the client certificate of the connection's
 * handshake, verified against --client-ca-file's CAs of the moment (chains through the
 * intermediates it sent, client auth usage), is the user of its CN in the groups of its Os; one that does not verify is an
 * error; none is not this authenticator's.
 */
export function x509Authenticator(clientCa: () => CertificatePool, observeExpiration: (seconds: number) => void): RequestAuthenticator {
  const verified = verifiedPeer(clientCa);
  return async (req) => {
    const found = verified(req);
    if (!found) return null;
    const { peer, error } = found;
    // Observed before verification, as kube's: a certificate refused is counted too.
    observeExpiration((Date.parse(peer.leaf.validTo) - Date.now()) / 1000);
    if (error !== undefined) return { error: `verifying certificate ${certificateIdentifier(peer)} failed: ${error}` };
    const names = certificateNames(peer);
    if ('error' in names) return { error: `verifying certificate ${certificateIdentifier(peer)} failed: ${names.error}` };
    if (names.commonName === '') return { error: 'certificate has no common name' };
    return {
      user: {
        name: names.commonName,
        uid: '',
        groups: names.organizations,
        extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(peer.leaf.raw).digest('hex')}`] },
      },
    };
  };
}

/** What requestheader authentication trusts and reads (kube's --requestheader-* flags). */
export interface RequestHeaderOptions {
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** A header's values, each occurrence apart. */
const headerValues = (req: IncomingMessage, name: string): string[] => req.headersDistinct[name.toLowerCase()] ?? [];

/**
 * requestheader's authenticator behind x509request.NewVerifier: a client certificate that chains
 * to the requestheader CA of the moment alone (client auth usage), verified by the handshake too, with an
 * allowed common name, may assert the user in headers (the first
 * non-empty username header; every group header's values; extra from the prefixed headers, keys
 * lower-cased and unescaped). Without a username header it is not this authenticator's request.
 * On success the headers are removed (ClearAuthenticationHeaders).
 */
export function requestHeaderAuthenticator(opts: RequestHeaderOptions, ca: () => CertificatePool): RequestAuthenticator {
  const verified = verifiedPeer(ca);
  return async (req) => {
    const found = verified(req);
    if (!found) return null;
    if (found.error !== undefined) return { error: `unable to verify certificate: ${found.error}` };
    const names = certificateNames(found.peer);
    if ('error' in names) return { error: `unable to verify certificate: ${names.error}` };
    const cn = names.commonName;
    if (opts.allowedNames.length > 0 && !opts.allowedNames.includes(cn)) return { error: `x509: subject with cn=${cn} is not in the allowed list` };
    const name = opts.usernameHeaders.map((h) => headerValues(req, h)[0]?.trim() ?? '').find((v) => v !== '');
    if (!name) return null;
    const groups = opts.groupHeaders.flatMap((h) => headerValues(req, h));
    const extra: Record<string, string[]> = {};
    const prefixes = opts.extraHeaderPrefixes.map((p) => p.toLowerCase());
    for (const header of Object.keys(req.headersDistinct)) {
      const prefix = prefixes.find((p) => header.startsWith(p));
      if (!prefix) continue;
      const key = decodeURIComponent(header.slice(prefix.length)).toLowerCase();
      extra[key] = [...(extra[key] ?? []), ...headerValues(req, header)];
    }
    for (const header of Object.keys(req.headers)) {
      const lower = header.toLowerCase();
      if ([...opts.usernameHeaders, ...opts.groupHeaders].some((h) => h.toLowerCase() === lower) || prefixes.some((p) => lower.startsWith(p)))
        delete req.headers[header];
    }
    return { user: { name, uid: '', groups, extra } };
  };
}

/** bearertoken.Authenticator's warning for `Bearer  <token>`, which authenticates nothing. */
export const EXTRA_SPACE_WARNING = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

/** Whether the header is a bearer token after a second space (its token, split at single spaces, is empty). */
export function bearerWithExtraSpace(header: string | undefined): boolean {
  if (!header) return false;
  const parts = header.trim().split(' ');
  return parts.length >= 3 && parts[0].toLowerCase() === 'bearer' && parts[1] === '';
}

/**
 * bearertoken.Authenticator: `Authorization: Bearer <token>` given to the token authenticators;
 * a token none of them takes is "invalid bearer token". On success the header is removed, so it
 * never reaches handlers or logs.
 */
export function bearerTokenAuthenticator(tokens: TokenAuthenticator, apiAudiences: string[]): RequestAuthenticator {
  return async (req) => {
    const header = req.headers.authorization;
    if (!header) return null;
    const parts = header.trim().split(' ');
    if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || parts[1] === '') return null;
    const result = await tokens(parts[1], apiAudiences);
    if (!result) return { error: 'invalid bearer token' };
    if ('user' in result) delete req.headers.authorization;
    return result;
  };
}

/** AuthenticatedGroupAdder: every authenticated user but the anonymous one is in system:authenticated. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER.name || user.groups.includes(ALL_AUTHENTICATED) || user.groups.includes(ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

/**
 * The request authenticator of BuildAuthenticator: x509, then bearer tokens, the authenticated
 * group added; then, with --anonymous-auth and only when no authenticator saw bad credentials
 * (union.NewFailOnError), the anonymous user. Null means 401.
 */
export function requestAuthenticator(
  authenticators: RequestAuthenticator[],
  anonymous: boolean,
): (req: IncomingMessage) => Promise<UserInfo | { error: string } | null> {
  const all = union(authenticators);
  return async (req) => {
    const result = await all(req);
    if (result && 'user' in result) return withAuthenticatedGroup(result.user);
    if (result) return result;
    return anonymous ? ANONYMOUS_USER : null;
  };
}

/**
 * What TokenReview asks: the token as a bearer token for the audiences given (the API server's
 * when none), with the authenticated group, as tokenreview's REST authenticates a request
 * carrying nothing but the token.
 */
export function tokenReviewer(tokens: TokenAuthenticator, apiAudiences: string[]) {
  return async (token: string, audiences: string[]): Promise<{ user: UserInfo; audiences: string[] } | { error: string }> => {
    const asked = audiences.length > 0 ? audiences : apiAudiences;
    const result = await tokens(token, asked);
    if (!result) return { error: 'invalid bearer token' };
    if ('error' in result) return result;
    return { user: withAuthenticatedGroup(result.user), audiences: result.audiences ?? asked };
  };
}
