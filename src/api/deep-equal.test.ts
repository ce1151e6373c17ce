import { jsonEqual } from './deep-equal';

describe('jsonEqual', () => {
  test.each([
    [1, 1, true],
    ['a', 'a', true],
    [null, null, true],
    [1, '1', false],
    [0, false, false],
    [null, undefined, false],
    [null, {}, false],
    [[], {}, false],
    [[1, 2], [1, 2], true],
    [[1, 2], [2, 1], false],
    [[1], [1, 1], false],
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [{ a: { b: 1 } }, { a: { b: 2 } }, false],
  ])('%j vs %j -> %s', (a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });

  test('a key holding undefined counts as absent', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(true);
    expect(jsonEqual({ a: undefined, b: 1 }, { c: 1 })).toBe(false);
  });

  test('key count cannot hide a missing key', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(true);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
  });
});
