import { createHmac, timingSafeEqual } from 'node:crypto';

/** Compact JWS with HS256 (RFC 7515/7519): the one token format kapi issues and reads. */

export type JwtClaims = Record<string, unknown>;

const HEADER = { alg: 'HS256', typ: 'JWT' };

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

function signature(signingInput: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(signingInput).digest();
}

export function signJwt(claims: JwtClaims, key: Buffer): string {
  const signingInput = `${base64url(JSON.stringify(HEADER))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${base64url(signature(signingInput, key))}`;
}

/** The claims of a token signed with `key`; a string saying why when it is not one. */
export function verifyJwt(token: string, key: Buffer): JwtClaims | string {
  const parts = token.split('.');
  if (parts.length !== 3) return 'token is not a JWT: expected 3 dot-separated parts';
  const [header, payload, sig] = parts;
  let parsedHeader: unknown;
  let claims: unknown;
  try {
    parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return 'token is not a JWT: malformed header or claims';
  }
  if ((parsedHeader as { alg?: unknown } | null)?.alg !== 'HS256') return 'unexpected signature algorithm';
  const expected = signature(`${header}.${payload}`, key);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid signature';
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return 'token is not a JWT: claims are not an object';
  return claims as JwtClaims;
}
