import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createCertificateAuthority, createLeafCertificate } from './certificates';
import {
  ANONYMOUS_USER,
  bearerTokenAuthenticator,
  issuedByOneOf,
  requestAuthenticator,
  staticTokenAuthenticator,
  tokenReviewer,
  tokenUnion,
  withAuthenticatedGroup,
} from './authenticators';
import type { UserInfo } from './user';

const alice: UserInfo = { name: 'alice', uid: 'u1', groups: ['dev'], extra: {} };
const tokens = staticTokenAuthenticator(new Map([['good', alice]]));
const failing = async () => ({ error: 'token has expired' });
const request = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization }, socket: {} }) as unknown as IncomingMessage;

describe('authenticators', () => {
  test('a bearer token: the scheme is case-insensitive, an empty token is no credential, an unknown one an error', async () => {
    const bearer = bearerTokenAuthenticator(tokens, []);
    expect(await bearer(request('bearer good'))).toEqual({ user: alice });
    expect(await bearer(request('Bearer '))).toBeNull();
    expect(await bearer(request('Basic Zm9vOmJhcg=='))).toBeNull();
    expect(await bearer(request())).toBeNull();
    expect(await bearer(request('Bearer bad'))).toEqual({ error: 'invalid bearer token' });
  });

  test('the Authorization header is removed once it authenticated, kept otherwise', async () => {
    const bearer = bearerTokenAuthenticator(tokens, []);
    const ok = request('Bearer good');
    await bearer(ok);
    expect(ok.headers.authorization).toBeUndefined();
    const bad = request('Bearer bad');
    await bearer(bad);
    expect(bad.headers.authorization).toBe('Bearer bad');
  });

  test('a union: the first user wins; errors are kept when none succeeds, one as itself, several as a list', async () => {
    expect(await tokenUnion([failing, tokens])('good', [])).toEqual({ user: alice });
    expect(await tokenUnion([failing, tokens])('bad', [])).toEqual({ error: 'token has expired' });
    expect(await tokenUnion([failing, async () => ({ error: 'no' })])('x', [])).toEqual({ error: '[token has expired, no]' });
    expect(await tokenUnion([tokens])('bad', [])).toBeNull();
  });

  test('system:authenticated is added once, never to the anonymous user', () => {
    expect(withAuthenticatedGroup(alice).groups).toEqual(['dev', 'system:authenticated']);
    expect(withAuthenticatedGroup({ ...alice, groups: ['system:authenticated'] }).groups).toEqual(['system:authenticated']);
    expect(withAuthenticatedGroup(ANONYMOUS_USER)).toBe(ANONYMOUS_USER);
  });

  test('anonymous only when no authenticator saw bad credentials, and only when allowed', async () => {
    const bearer = bearerTokenAuthenticator(tokens, []);
    expect(await requestAuthenticator([bearer], true)(request())).toEqual(ANONYMOUS_USER);
    expect(await requestAuthenticator([bearer], false)(request())).toBeNull();
    expect(await requestAuthenticator([bearer], true)(request('Bearer bad'))).toEqual({ error: 'invalid bearer token' });
    expect(await requestAuthenticator([bearer], true)(request('Bearer good'))).toEqual({ ...alice, groups: ['dev', 'system:authenticated'] });
  });

  test("a token review: the API server's audiences when none are asked, the authenticated group added", async () => {
    const seen: string[][] = [];
    const review = tokenReviewer(async (token, audiences) => (seen.push(audiences), token === 'good' ? { user: alice } : null), ['api']);
    expect(await review('good', [])).toEqual({ user: { ...alice, groups: ['dev', 'system:authenticated'] }, audiences: ['api'] });
    expect(await review('bad', ['x'])).toEqual({ error: 'invalid bearer token' });
    expect(seen).toEqual([['api'], ['x']]);
  });
});

describe('issuedByOneOf (the requestheader CA check)', () => {
  const signer = createCertificateAuthority('front-proxy-ca');
  const other = createCertificateAuthority('other-ca');
  const leaf = createLeafCertificate(signer, { commonName: 'front-proxy-client', usage: 'client', validDays: 1 });
  const raw = new X509Certificate(leaf.cert).raw;

  test('a certificate the CA signed, within its validity, is issued by it; another CA did not issue it', () => {
    expect(issuedByOneOf(raw, [new X509Certificate(signer.cert)])).toBe(true);
    expect(issuedByOneOf(raw, [new X509Certificate(other.cert)])).toBe(false);
    expect(issuedByOneOf(raw, [new X509Certificate(other.cert), new X509Certificate(signer.cert)])).toBe(true);
  });

  test('outside its validity it is not', () => {
    expect(issuedByOneOf(raw, [new X509Certificate(signer.cert)], new Date(Date.now() + 3 * 86_400_000))).toBe(false);
  });
});
