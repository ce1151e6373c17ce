import { signJwt, verifyJwt } from './jwt';

const KEY = Buffer.alloc(32, 7);

describe('HS256 JWTs', () => {
  test('a signed token verifies to its claims', () => {
    const token = signJwt({ sub: 'a', n: 1 }, KEY);
    expect(token.split('.')).toHaveLength(3);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(verifyJwt(token, KEY)).toEqual({ sub: 'a', n: 1 });
  });

  test('another key, changed claims, another algorithm or no JWT at all are refused', () => {
    const token = signJwt({ sub: 'a' }, KEY);
    expect(verifyJwt(token, Buffer.alloc(32, 8))).toBe('invalid signature');
    const [header, , sig] = token.split('.');
    expect(verifyJwt(`${header}.${Buffer.from('{"sub":"b"}').toString('base64url')}.${sig}`, KEY)).toBe('invalid signature');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${token.split('.')[1]}.`;
    expect(verifyJwt(none, KEY)).toBe('unexpected signature algorithm');
    expect(verifyJwt('abc', KEY)).toBe('token is not a JWT: expected 3 dot-separated parts');
    expect(verifyJwt('a.b.c', KEY)).toBe('token is not a JWT: malformed header or claims');
  });
});
