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
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test('the value of none is an error, in cel-go words', () => {
    expect(evaluate('optional.none().value()')).toEqual({ error: 'optional.none() dereference' });
  });
});
