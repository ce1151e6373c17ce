import { generateKeyPairSync } from 'node:crypto';
import { algorithmOf, signJwt, verifyJwt, type JwtKey } from './jwt';

const keyOf = (key: ReturnType<typeof generateKeyPairSync>['privateKey'], kid: string): JwtKey => ({ key, alg: algorithmOf(key), kid });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ES = keyOf(ec.privateKey, 'e1');
const ES_PUBLIC = keyOf(ec.publicKey, 'e1');
const RS = keyOf(rsa.privateKey, 'r1');
const RS_PUBLIC = keyOf(rsa.publicKey, 'r1');

describe('asymmetric JWTs', () => {
  test('RSA keys sign RS256, P-256 keys ES256; a token verifies with the public key to its claims', () => {
    expect([RS.alg, ES.alg, algorithmOf(generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey)]).toEqual(['RS256', 'ES256', 'ES384']);
    for (const [signer, verifier] of [
      [ES, ES_PUBLIC],
      [RS, RS_PUBLIC],
    ]) {
      const token = signJwt({ sub: 'a', n: 1 }, signer);
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({ alg: signer.alg, kid: signer.kid });
      expect(verifyJwt(token, [verifier])).toEqual({ sub: 'a', n: 1 });
    }
    // An ES256 signature is r||s: 64 bytes.
    expect(Buffer.from(signJwt({}, ES).split('.')[2], 'base64url')).toHaveLength(64);
  });

  test('the key named by kid is used; without kid any key of the algorithm', () => {
    const other = keyOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey, 'e2');
    const token = signJwt({ sub: 'a' }, ES);
    expect(verifyJwt(token, [other, ES_PUBLIC])).toEqual({ sub: 'a' });
    expect(verifyJwt(token, [{ ...other, kid: 'e1' }])).toBe('invalid signature');
  });

  test('another key, changed claims, another algorithm or no JWT at all are refused', () => {
    const token = signJwt({ sub: 'a' }, ES);
    expect(verifyJwt(token, [keyOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey, 'e1')])).toBe('invalid signature');
    const [header, , sig] = token.split('.');
    expect(verifyJwt(`${header}.${Buffer.from('{"sub":"b"}').toString('base64url')}.${sig}`, [ES_PUBLIC])).toBe('invalid signature');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${token.split('.')[1]}.`;
    expect(verifyJwt(none, [ES_PUBLIC])).toBe('unexpected signature algorithm');
    expect(verifyJwt(token, [RS_PUBLIC])).toBe('unexpected signature algorithm');
    expect(verifyJwt('abc', [ES_PUBLIC])).toBe('token is not a JWT: expected 3 dot-separated parts');
    expect(verifyJwt('a.b.c', [ES_PUBLIC])).toBe('token is not a JWT: malformed header or claims');
  });
});
