import { generateKeyPairSync } from 'node:crypto';
import { SERVICE_ACCOUNT_ISSUER, ServiceAccountTokens } from './service-account-tokens';
import { algorithmOf, signJwt, type JwtKey } from './jwt';
import type { ServiceAccountKeys } from './service-account-keys';

function newKeys(): ServiceAccountKeys {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signing: JwtKey = { key: privateKey, alg: algorithmOf(privateKey), kid: 'k' };
  return { signing, verifying: [{ ...signing, key: publicKey }] };
}
const KEYS = newKeys();
const tokens = new ServiceAccountTokens(KEYS);
const subject = { namespace: 'ns', serviceaccount: { name: 'bot', uid: 'u1' } };
const NOW = 1_700_000_000;
const issue = (audiences = [SERVICE_ACCOUNT_ISSUER], expirationSeconds = 3600) => tokens.issue({ subject, audiences, expirationSeconds, now: NOW });

describe('service account tokens', () => {
  test('carry kube claims and verify within their lifetime', () => {
    const token = issue();
    expect(tokens.verify(token, [], NOW + 10)).toEqual({ subject, audiences: [SERVICE_ACCOUNT_ISSUER], jti: expect.any(String) });
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(Object.keys(claims)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    expect(claims).toMatchObject({ exp: NOW + 3600, iat: NOW, nbf: NOW, iss: SERVICE_ACCOUNT_ISSUER, sub: 'system:serviceaccount:ns:bot' });
  });

  test('expire after exp and the leeway, and are not valid long before nbf', () => {
    const token = issue();
    expect(tokens.verify(token, [], NOW + 3600 + 60)).toMatchObject({ subject });
    expect(tokens.verify(token, [], NOW + 3600 + 61)).toBe('service account token has expired');
    expect(tokens.verify(token, [], NOW - 61)).toBe('service account token is not valid yet');
  });

  test('audiences: the intersection with those asked for, the API server audience when none', () => {
    const token = issue(['a', 'b']);
    expect(tokens.verify(token, ['b', 'c'], NOW)).toMatchObject({ audiences: ['b'] });
    expect(tokens.verify(token, ['c'], NOW)).toBe('token audiences ["a" "b"] is invalid for the target audiences ["c"]');
    expect(tokens.verify(token, [], NOW)).toBe(`token audiences ["a" "b"] is invalid for the target audiences ["${SERVICE_ACCOUNT_ISSUER}"]`);
  });

  test('tokens of another key, another issuer or without kube claims are refused', () => {
    expect(new ServiceAccountTokens(newKeys()).verify(issue(), [], NOW)).toBe('invalid bearer token, invalid signature');
    expect(new ServiceAccountTokens(KEYS, ['https://other']).verify(issue(), [], NOW)).toBe('invalid bearer token, token issuer is not this API server');
    const bare = signJwt({ iss: SERVICE_ACCOUNT_ISSUER, sub: 'system:serviceaccount:ns:bot', aud: [SERVICE_ACCOUNT_ISSUER] }, KEYS.signing);
    expect(tokens.verify(bare, [], NOW)).toBe('service account token claims are malformed');
  });

  test("every issuer given is accepted, the first issues; only tokens of those issuers are the cluster's", () => {
    const both = new ServiceAccountTokens(KEYS, ['https://new', SERVICE_ACCOUNT_ISSUER]);
    expect(both.verify(issue(), [SERVICE_ACCOUNT_ISSUER], NOW)).toMatchObject({ subject });
    expect(both.issuer).toBe('https://new');
    expect(both.apiAudiences).toEqual(['https://new']);
    expect(both.hasIssuer(issue())).toBe(true);
    expect(new ServiceAccountTokens(KEYS, ['https://other']).hasIssuer(issue())).toBe(false);
    expect(tokens.hasIssuer('not-a-jwt')).toBe(false);
  });
});
