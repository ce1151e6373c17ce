import { evaluate } from './test-eval';

describe('optional values', () => {
  test.each([
    ['optional.of(1).hasValue()', true],
    ['optional.of(1).value()', 1],
    ['optional.none().hasValue()', false],
    ['optional.none().orValue(5)', 5],
    ['optional.of(2).orValue(5)', 2],
    ['optional.none().or(optional.of(2)).value()', 2],
    ['optional.of(1).or(optional.of(2)).value()', 1],
    [
      "optional.ofNonZeroValue('').hasValue() || optional.ofNonZeroValue(0).hasValue() || optional.ofNonZeroValue([]).hasValue() || optional.ofNonZeroValue({}).hasValue()",
      false,
    ],
    ["optional.ofNonZeroValue('x').value()", 'x'],
    ['optional.of(1) == optional.of(1) && optional.none() == optional.none()', true],
    ['optional.of(1) == optional.none() || optional.of(1) == optional.of(2)', false],
    // cel.OptionalTypes version 2
    ['[1, 2, 3].first() == optional.of(1) && [1, 2, 3].last() == optional.of(3)', true],
    ['[].first().hasValue() || [].last().hasValue()', false],
    ['optional.unwrap([optional.of(1), optional.none(), optional.of(3)]) == [1, 3]', true],
    // the optMap and optFlatMap macros
    ['optional.of(2).optMap(x, x * 3) == optional.of(6)', true],
    ['optional.none().optMap(x, x * 3) == optional.none()', true],
    ["{'a': 1}[?'a'].optMap(v, v + 1).value()", 2],
    ["optional.of('k').optFlatMap(k, {'k': 7}[?k]).value()", 7],
    ["optional.of('z').optFlatMap(k, {'k': 7}[?k]).hasValue()", false],
    ['optional.none().optFlatMap(k, optional.of(k)).orValue(9)', 9],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test('optMap and optFlatMap take a simple name, in cel-go words', () => {
    expect(() => evaluate('optional.of(1).optMap(x.y, 1)')).toThrow('optMap() variable name must be a simple identifier');
    expect(() => evaluate('optional.of(1).optFlatMap(1, optional.of(1))')).toThrow('optFlatMap() variable name must be a simple identifier');
  });

  test('the value of none is an error, in cel-go words', () => {
    expect(evaluate('optional.none().value()')).toEqual({ error: 'optional.none() dereference' });
  });
});
