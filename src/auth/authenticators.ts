import { createHash, X509Certificate } from 'node:crypto';
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

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle. */
const certificatesOf = (pem: string): X509Certificate[] => (pem.match(PEM_CERTIFICATE) ?? []).map((c) => new X509Certificate(c));

/** Whether a DER certificate was signed by one of the CAs and is within its validity (x509's Verify against one pool, without chains). */
export function issuedByOneOf(raw: Buffer, cas: X509Certificate[], now = new Date()): boolean {
  const cert = new X509Certificate(raw);
  if (now < new Date(cert.validFrom) || now > new Date(cert.validTo)) return false;
  return cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
}

/**
 * `issuedByOneOf` for a connection's client certificate, decided once per connection (the
 * certificate cannot change on it), so a kept-alive client pays the signature check once.
 */
function peerIssuedBy(caPem: string): (socket: TLSSocket, raw: Buffer) => boolean {
  const cas = certificatesOf(caPem);
  const decided = new WeakMap<TLSSocket, boolean>();
  return (socket, raw) => {
    let answer = decided.get(socket);
    if (answer === undefined) decided.set(socket, (answer = issuedByOneOf(raw, cas)));
    return answer;
  };
}

/** What requestheader authentication trusts and reads (kube's --requestheader-* flags). */
export interface RequestHeaderOptions {
  ca: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** A header's values, each occurrence apart. */
const headerValues = (req: IncomingMessage, name: string): string[] => req.headersDistinct[name.toLowerCase()] ?? [];

/**
 * requestheader's authenticator behind x509request.NewVerifier: a client certificate signed by the
 * requestheader CA, with an allowed common name, may assert the user in headers (the first
 * non-empty username header; every group header's values; extra from the prefixed headers, keys
 * lower-cased and unescaped). Without a username header it is not this authenticator's request.
 * On success the headers are removed (ClearAuthenticationHeaders).
 */
export function requestHeaderAuthenticator(opts: RequestHeaderOptions): RequestAuthenticator {
  const trusted = peerIssuedBy(opts.ca);
  return async (req) => {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return null;
    const cert = socket.getPeerCertificate();
    if (!cert || !cert.raw) return null;
    if (!trusted(socket, cert.raw)) return { error: 'unable to verify certificate: x509: certificate signed by unknown authority' };
    const cn = values(cert.subject?.CN)[0] ?? '';
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

/**
 * The x509 authenticator, for certificates that chain to the client CA: one only the requestheader
 * CA signed (asked for by the same TLS listener) fails verification as kube's x509 authenticator,
 * verifying against the client CA alone, fails it.
 */
export function clientCaOnly(authenticate: RequestAuthenticator, clientCa: string, requestHeaderCa: string): RequestAuthenticator {
  const byFrontProxyCa = peerIssuedBy(requestHeaderCa);
  const byClientCa = peerIssuedBy(clientCa);
  return async (req) => {
    const socket = req.socket as TLSSocket;
    const cert = socket.getPeerCertificate?.();
    if (cert?.raw && byFrontProxyCa(socket, cert.raw) && !byClientCa(socket, cert.raw)) {
      return { error: `verifying certificate SN=${cert.serialNumber}, SKID=, AKID= failed: x509: certificate signed by unknown authority` };
    }
    return authenticate(req);
  };
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
