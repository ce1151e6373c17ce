import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { authenticateServiceAccountToken, type ObjectLookup } from './service-account-authenticator';
import type { ServiceAccountTokens } from './service-account-tokens';
import type { UserInfo } from './user';

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
const CLIENT_AUTH_EKU = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';

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

export const tokenUnion = (authenticators: TokenAuthenticator[]): TokenAuthenticator => union(authenticators);

/** A `string | string[]` field of a peer certificate's subject, as a list. */
const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * x509.Authenticator with CommonNameUserConversion: a client certificate the TLS handshake
 * verified against --client-ca-file, usable for client authentication, is the user of its CN in
 * the groups of its Os; one that did not verify is an error; none is not this authenticator's.
 */
export const x509Authenticator: RequestAuthenticator = async (req) => {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return null;
  const cert = socket.getPeerCertificate();
  if (!cert || !cert.raw) return null;
  if (!socket.authorized) return { error: `verifying certificate SN=${cert.serialNumber}, SKID=, AKID= failed: ${String(socket.authorizationError)}` };
  const usages = (cert as { ext_key_usage?: string[] }).ext_key_usage;
  if (usages && !usages.includes(CLIENT_AUTH_EKU) && !usages.includes(ANY_EKU)) {
    return { error: 'x509: certificate specifies an incompatible key usage' };
  }
  const name = values(cert.subject?.CN)[0] ?? '';
  if (name === '') return { error: 'certificate has no common name' };
  return {
    user: {
      name,
      uid: '',
      groups: values(cert.subject?.O),
      extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(cert.raw).digest('hex')}`] },
    },
  };
};

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
export function requestAuthenticator(authenticators: RequestAuthenticator[], anonymous: boolean): (req: IncomingMessage) => Promise<UserInfo | { error: string } | null> {
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
