import { decodeContinue, encodeContinue } from './continue-token';
import { StorageError } from './storage-error';

const token = (wire: unknown): string => Buffer.from(JSON.stringify(wire)).toString('base64url');

function errorOf(value: string): string {
  try {
    decodeContinue(value);
  } catch (err) {
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).code).toBe('InvalidContinue');
    return (err as StorageError).message;
  }
  throw new Error('decoded');
}

describe('continue tokens', () => {
  test('encode as kube-apiserver does: unpadded base64url JSON {v, rv, start}', () => {
    const value = encodeContinue({ revision: 42, startKey: 'default/web\u0000' });
    expect(value).not.toMatch(/[=+/]/);
    expect(Buffer.from(value, 'base64url').toString()).toBe('{"v":"meta.k8s.io/v1","rv":42,"start":"default/web\\u0000"}');
  });

  test('round trip', () => {
    expect(decodeContinue(encodeContinue({ revision: 7, startKey: 'ns/b' }))).toEqual({ revision: 7, startKey: 'ns/b' });
  });

  test('a token written by kube-apiserver decodes', () => {
    // base64.RawURLEncoding of {"v":"meta.k8s.io/v1","rv":5,"start":"a\u0000"}
    expect(decodeContinue('eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiJhXHUwMDAwIn0')).toEqual({ revision: 5, startKey: 'a\u0000' });
  });

  test('a leading slash is allowed and dropped', () => {
    expect(decodeContinue(token({ v: 'meta.k8s.io/v1', rv: 3, start: '/ns/a' }))).toEqual({ revision: 3, startKey: 'ns/a' });
  });

  test('errors carry storage.DecodeContinue texts', () => {
    expect(errorOf(token({ v: 'meta.k8s.io/v2', rv: 3, start: 'a' }))).toBe(
      'continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2',
    );
    expect(errorOf(token({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }))).toBe(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
    expect(errorOf(token({ v: 'meta.k8s.io/v1', rv: 3, start: '' }))).toBe('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  });

  test('keys that climb out of the prefix, or are not clean, are refused', () => {
    for (const start of ['../secrets/x', 'a/../../b', 'a//b', 'a/./b', 'a/']) {
      expect(errorOf(token({ v: 'meta.k8s.io/v1', rv: 3, start }))).toBe(`continue key is not valid: ${start}`);
    }
  });

  test('garbage is refused', () => {
    expect(errorOf('not base64!')).toBe('continue key is not valid: illegal base64 data at input byte 3');
    expect(errorOf(Buffer.from('{"v":').toString('base64url'))).toBe('continue key is not valid: unexpected end of JSON input');
    expect(errorOf(Buffer.from("{'v':1}").toString('base64url'))).toBe(
      "continue key is not valid: invalid character '\\'' looking for beginning of object key string",
    );
    expect(errorOf(token([1]))).toBe('continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken');
  });

  test("json.Unmarshal's reading: the first mistyped field, keys in any case, null as absent", () => {
    expect(errorOf(token({ v: 5, rv: 'x', start: 'a' }))).toBe(
      'continue key is not valid: json: cannot unmarshal number into Go struct field continueToken.v of type string',
    );
    expect(errorOf(token({ rv: 1.5, v: 'meta.k8s.io/v1', start: 'a' }))).toBe(
      'continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64',
    );
    expect(errorOf(token({ v: 'meta.k8s.io/v1', rv: 3, start: ['a'] }))).toBe(
      'continue key is not valid: json: cannot unmarshal array into Go struct field continueToken.start of type string',
    );
    expect(decodeContinue(token({ V: 'meta.k8s.io/v1', RV: 3, Start: 'a' }))).toEqual({ revision: 3, startKey: 'a' });
    expect(errorOf(token(null))).toBe('continue key is not valid: server does not recognize this encoded version ');
    expect(errorOf(token({ v: 'meta.k8s.io/v1', rv: null, start: 'a' }))).toBe(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  });
});
