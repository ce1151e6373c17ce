import { evaluate } from './test-eval';

describe('sets library', () => {
  test.each([
    ['sets.contains([], [])', true],
    ['sets.contains([1, 2, 3], [3, 1])', true],
    ['sets.contains([1, 2], [2, 3])', false],
    ['sets.contains([1], [1.0])', true],
    ['sets.equivalent([1, 1, 2], [2, 1])', true],
    ['sets.equivalent([1], [1, 2])', false],
    ['sets.intersects([1, 2], [2, 3])', true],
    ['sets.intersects([1], [])', false],
    ["sets.contains([['a']], [['a']])", true],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });
});
