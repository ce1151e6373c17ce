import { jsonClone } from './json-clone';

describe('jsonClone', () => {
  test('copies as structuredClone does, sharing nothing', () => {
    const value = { a: 1, b: [1, { c: 'x' }, null], d: { e: true, f: undefined }, g: '' };
    const copy = jsonClone(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(copy.b[1]).not.toBe(value.b[1]);
    expect(copy.d).not.toBe(value.d);
    expect(Object.keys(copy)).toEqual(Object.keys(value));
  });

  test('a "__proto__" key of decoded JSON stays an ordinary field', () => {
    const value = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}') as { metadata: { labels: Record<string, unknown> } };
    const copy = jsonClone(value);
    expect(Object.getPrototypeOf(copy.metadata.labels)).toBe(Object.prototype);
    expect(Object.keys(copy.metadata.labels)).toEqual(['__proto__']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
  });

  test('values that are not JSON are copied by structuredClone', () => {
    const value = { raw: Buffer.from('abc'), when: new Date(0) };
    const copy = jsonClone(value);
    expect(copy.raw).toEqual(structuredClone(value.raw));
    expect(copy.when).toEqual(new Date(0));
    expect(copy.when).not.toBe(value.when);
  });
});
