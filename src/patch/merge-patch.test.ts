import { applyMergePatch } from './merge-patch';
import { v4PatchedJson } from './v4-bytes';

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

describe("as json-patch v4's MergePatch writes its result", () => {
  const current = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', uid: 'u' }, data: { x: 'y' }, spec: { o: { k: 1 }, z: { b: 1, a: 2 } } };

  test('merged objects and values pruned of nulls are Go maps, sorted; the rest keeps the bytes it came with', () => {
    const decoded = new WeakSet<object>();
    const patch = {
      data: { b: 1, a: 2 },
      metadata: { labels: { z: '1', a: '2' } },
      list: [{ b: null, a: 1 }, null],
      spec: { o: [{ b: null, a: '<' }] },
    };
    const out = applyMergePatch(current, patch, decoded);
    expect(v4PatchedJson(out, decoded)).toBe(
      '{"apiVersion":"v1","data":{"a":2,"b":1,"x":"y"},"kind":"ConfigMap","list":[{"a":1},null],' +
        '"metadata":{"labels":{"a":"2","z":"1"},"name":"c","uid":"u"},"spec":{"o":[{"b":null,"a":"\\u003c"}],"z":{"b":1,"a":2}}}',
    );
  });
});
