import { evaluate } from './test-eval';

describe('lists library', () => {
  test.each([
    ['[1, 2, 3].isSorted()', true],
    ["['a', 'b', 'b'].isSorted()", true],
    ['[2, 1].isSorted()', false],
    ['[].isSorted()', true],
    ['[1, 2, 3].sum()', 6],
    ['[1.5, 2.5].sum()', 4],
    ['[].sum()', 0],
    ['[3, 1, 2].min()', 1],
    ['[3, 1, 2].max()', 3],
    ["['b', 'c', 'a'].max()", 'c'],
    ['[1, 2, 3, 2].indexOf(2)', 1],
    ['[1, 2, 3, 2].lastIndexOf(2)', 3],
    ['[1, 2].indexOf(5)', -1],
    ['[[1], [2]].indexOf([2])', 1],
    ["[duration('1s'), duration('2m')].sum() == duration('121s')", true],
    ["[timestamp('2024-01-02T00:00:00Z'), timestamp('2024-01-01T00:00:00Z')].min() == timestamp('2024-01-01T00:00:00Z')", true],
    ["[duration('1s'), duration('2s')].isSorted()", true],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test('a JSON number list holds ints and doubles; they compare and sum as numbers', () => {
    expect(evaluate('object.values.sum() == 3.5 && object.values.max() == 2.5 && object.values.isSorted()', { object: { values: [1, 2.5] } })).toBe(true);
  });

  test.each([
    ['[].min()', 'min called on empty list'],
    ['[].max()', 'max called on empty list'],
    ["[1, 'a'].isSorted()", 'no such overload'],
    ['[9223372036854775807, 1].sum()', 'integer overflow'],
    ["['a', 'b'].sum()", 'no such overload'],
    ['[{}].min()', 'no such overload'],
    ["[quantity('1')].isSorted()", 'no such overload'],
  ])('%s is an error', (source, message) => {
    expect(evaluate(source)).toEqual({ error: message });
  });
});
