import { randomUUID } from 'node:crypto';
import { signJwt, verifyJwt, type JwtClaims } from './jwt';
import type { ServiceAccountKeys } from './service-account-keys';

/**
 * kube-apiserver's --service-account-issuer as clusters are commonly set up (kubeadm's), which is
 * also the default of --api-audiences: the audience of tokens asked for without one.
 */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** go-jose's DefaultLeeway, which kube's validator allows around exp, nbf and iat. */
const LEEWAY_SECONDS = 60;

export interface ObjectRef {
  name: string;
  uid: string;
}

/** Who a token speaks for: the `kubernetes.io` private claim. */
export interface TokenSubject {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

export interface IssueRequest {
  subject: TokenSubject;
  audiences: string[];
  expirationSeconds: number;
  /** Seconds since the epoch; the token's iat and nbf. */
  now: number;
}

export interface VerifiedToken {
  subject: TokenSubject;
  /** The token's audiences that the reviewer asked for (or the API server's). */
  audiences: string[];
  jti: string;
}

/** `system:serviceaccount:<namespace>:<name>`, serviceaccount.MakeUsername. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** Go's %q of a []string: ["a" "b"]. */
const quotedList = (items: string[]): string => `[${items.map((i) => JSON.stringify(i)).join(' ')}]`;

function isRef(value: unknown): value is ObjectRef {
  const ref = value as Partial<ObjectRef> | null;
  return typeof ref === 'object' && ref !== null && typeof ref.name === 'string' && typeof ref.uid === 'string';
}

function subjectOf(claims: JwtClaims): TokenSubject | null {
  const k = claims['kubernetes.io'] as Partial<TokenSubject> | undefined;
  if (typeof k !== 'object' || k === null || typeof k.namespace !== 'string' || !isRef(k.serviceaccount)) return null;
  for (const bound of [k.pod, k.secret, k.node]) if (bound !== undefined && !isRef(bound)) return null;
  return k as TokenSubject;
}

/**
 * Issues and verifies the service account tokens of one cluster: signed with the signing key and
 * the first issuer (--service-account-issuer), accepted when signed by any verification key and
 * issued by any of the issuers, as kube-apiserver's JWTTokenAuthenticator.
 */
export class ServiceAccountTokens {
  readonly issuer: string;

  constructor(
    private readonly keys: ServiceAccountKeys,
    private readonly issuers: string[] = [SERVICE_ACCOUNT_ISSUER],
    readonly apiAudiences: string[] = [issuers[0]],
  ) {
    this.issuer = issuers[0];
  }

  /** A signed token with kube's claims (keys in the order Go's JSON writes a map: sorted). */
  issue({ subject, audiences, expirationSeconds, now }: IssueRequest): string {
    const claims: JwtClaims = {
      aud: audiences,
      exp: now + expirationSeconds,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': subject,
      nbf: now,
      sub: serviceAccountUsername(subject.namespace, subject.serviceaccount.name),
    };
    return signJwt(claims, this.keys.signing);
  }

  /**
   * Whether a token is a JWT naming one of this cluster's issuers: only such tokens are this
   * authenticator's to accept or refuse (kube's JWTTokenAuthenticator.hasCorrectIssuer).
   */
  hasIssuer(token: string): boolean {
    const parts = token.split('.');
    if (parts.length !== 3) return false;
    try {
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { iss?: unknown } | null;
      return typeof claims?.iss === 'string' && this.issuers.includes(claims.iss);
    } catch {
      return false;
    }
  }

  /**
   * The subject of a token this cluster signed, still valid at `now` and meant for one of the
   * requested audiences (the API server's when none are requested); otherwise why not, in words
   * close to kube-apiserver's. Whether the objects it names still exist is the caller's to check.
   */
  verify(token: string, requestedAudiences: string[], now: number): VerifiedToken | string {
    const claims = verifyJwt(token, this.keys.verifying);
    if (typeof claims === 'string') return `invalid bearer token, ${claims}`;
    if (typeof claims.iss !== 'string' || !this.issuers.includes(claims.iss)) return 'invalid bearer token, token issuer is not this API server';
    const subject = subjectOf(claims);
    if (!subject || claims.sub !== serviceAccountUsername(subject.namespace, subject.serviceaccount.name)) {
      return 'service account token claims are malformed';
    }
    if (typeof claims.exp === 'number' && now > claims.exp + LEEWAY_SECONDS) return 'service account token has expired';
    if (typeof claims.nbf === 'number' && now < claims.nbf - LEEWAY_SECONDS) return 'service account token is not valid yet';
    if (typeof claims.iat === 'number' && now < claims.iat - LEEWAY_SECONDS) return 'service account token is issued in the future';
    const aud = claims.aud;
    const tokenAudiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
    // A token without audiences is a legacy one, valid for the API server alone.
    const own = tokenAudiences.length > 0 ? tokenAudiences : this.apiAudiences;
    const requested = requestedAudiences.length > 0 ? requestedAudiences : this.apiAudiences;
    const audiences = own.filter((a) => requested.includes(a));
    if (audiences.length === 0) return `token audiences ${quotedList(own)} is invalid for the target audiences ${quotedList(requested)}`;
    return { subject, audiences, jti: typeof claims.jti === 'string' ? claims.jti : '' };
  }
}
