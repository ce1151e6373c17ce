import { sign, verify, type KeyObject } from 'node:crypto';

/** Compact JWS (RFC 7515/7519) signed with an asymmetric key: the token format kapi issues and reads. */

export type JwtClaims = Record<string, unknown>;

export type JwtAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

/** A key with the algorithm it signs with and its key id (the `kid` header). */
export interface JwtKey {
  key: KeyObject;
  alg: JwtAlgorithm;
  kid: string;
}

const EC_ALGORITHMS: Record<string, JwtAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
const HASHES: Record<JwtAlgorithm, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

/** The algorithm a key signs with, as kube's signerFromRSAPrivateKey/signerFromECDSAPrivateKey choose it. */
export function algorithmOf(key: KeyObject): JwtAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  const curve = key.asymmetricKeyType === 'ec' ? key.asymmetricKeyDetails?.namedCurve : undefined;
  const alg = curve ? EC_ALGORITHMS[curve] : undefined;
  if (!alg) throw new Error(`unsupported service account key: ${key.asymmetricKeyType ?? 'unknown'} ${curve ?? ''} (want RSA or ECDSA P-256/P-384/P-521)`);
  return alg;
}

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

// ECDSA signatures in JWS are r||s (IEEE P1363), not DER.
const options = (k: JwtKey) => ({ key: k.key, dsaEncoding: 'ieee-p1363' as const });

export function signJwt(claims: JwtClaims, signer: JwtKey): string {
  const header = { alg: signer.alg, kid: signer.kid };
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${base64url(sign(HASHES[signer.alg], Buffer.from(signingInput), options(signer)))}`;
}

/**
 * The claims of a token signed by one of `keys` (the one its `kid` names, else any of its
 * algorithm); a string saying why when it is not one.
 */
export function verifyJwt(token: string, keys: JwtKey[]): JwtClaims | string {
  const parts = token.split('.');
  if (parts.length !== 3) return 'token is not a JWT: expected 3 dot-separated parts';
  const [header, payload, sig] = parts;
  let parsedHeader: { alg?: unknown; kid?: unknown } | null;
  let claims: unknown;
  try {
    parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as typeof parsedHeader;
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return 'token is not a JWT: malformed header or claims';
  }
  const candidates = keys.filter((k) => k.alg === parsedHeader?.alg && (typeof parsedHeader.kid !== 'string' || k.kid === parsedHeader.kid));
  if (!keys.some((k) => k.alg === parsedHeader?.alg)) return 'unexpected signature algorithm';
  const input = Buffer.from(`${header}.${payload}`);
  const signature = Buffer.from(sig, 'base64url');
  if (!candidates.some((k) => verify(HASHES[k.alg], input, options(k), signature))) return 'invalid signature';
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return 'token is not a JWT: claims are not an object';
  return claims as JwtClaims;
}
