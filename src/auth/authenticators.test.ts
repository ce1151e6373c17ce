import type { IncomingMessage } from 'node:http';
import {
  ANONYMOUS_USER,
  audienceAgnostic,
  bearerTokenAuthenticator,
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

  test("a static token (audience-agnostic) answers only for audiences it shares with the API server's", async () => {
    const wrapped = audienceAgnostic(['api', 'other'], tokens);
    expect(await wrapped('good', ['vault'])).toBeNull();
    expect(await wrapped('good', ['vault', 'other', 'api'])).toEqual({ user: alice, audiences: ['api', 'other'] });
    expect(await wrapped('bad', ['api'])).toBeNull();
  });
});
