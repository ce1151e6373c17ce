import { applyMergePatch } from './merge-patch';

describe('applyMergePatch (RFC 7386)', () => {
  test('objects merge key by key; null deletes; other values replace', () => {
    const target = { metadata: { name: 'c', labels: { a: '1', b: '2' } }, data: { k: 'v' }, list: [1, 2] };
    expect(applyMergePatch(target, { metadata: { labels: { a: null, c: '3' } }, data: null, list: [3] })).toEqual({
      metadata: { name: 'c', labels: { b: '2', c: '3' } },
      list: [3],
    });
  });

  test('the target is not modified', () => {
    const target = { a: { b: 1 } };
    applyMergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });

  test('a non-object patch replaces the whole document', () => {
    expect(applyMergePatch({ a: 1 }, [1, 2])).toEqual([1, 2]);
    expect(applyMergePatch({ a: 1 }, 'x')).toBe('x');
  });

  test('a null for a missing key is a no-op, and nulls are not stored', () => {
    expect(applyMergePatch({ a: 1 }, { b: null, c: { d: null, e: 1 } })).toEqual({ a: 1, c: { e: 1 } });
  });

  test('an object patch on a scalar starts from an empty object', () => {
    expect(applyMergePatch({ a: 'x' }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
  });

  test('"__proto__" in a patch is an ordinary key', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": "yes"}, "metadata": {"__proto__": {"x": 1}}}');
    const out = applyMergePatch({ metadata: { name: 'a' } }, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"metadata":{"name":"a","__proto__":{"x":1}},"__proto__":{"polluted":"yes"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
