import { evaluate } from './test-eval';
import { compileExpression, toCel } from '../../admission/policy/cel';

describe('lists extension (cel-go ext.Lists, version 3)', () => {
  test.each([
    'lists.range(4) == [0, 1, 2, 3]',
    'lists.range(0) == []',
    'lists.range(-2) == []',
    '[5, 1, 2, 3].reverse() == [3, 2, 1, 5]',
    '[].reverse() == []',
    "['are', 'you', 'as', 'bored', 'as', 'I', 'am'].reverse() == ['am', 'I', 'as', 'bored', 'as', 'you', 'are']",
    '[1, 2, 3, 4].slice(0, 4) == [1, 2, 3, 4]',
    '[1, 2, 3, 4].slice(4, 4) == []',
    '[1, 2, 3, 4].slice(1, 3) == [2, 3]',
    'dyn([]).flatten() == []',
    '[1, [2, [3, 4]]].flatten() == [1, 2, [3, 4]]',
    '[1, 2, [], [], [3, 4]].flatten() == [1, 2, 3, 4]',
    '[1, [2, [3, 4]]].flatten(2) == [1, 2, 3, 4]',
    '[[1, 2], 3].flatten(0) == [[1, 2], 3]',
    '[].sort() == []',
    '[4, 3, 2, 1].sort() == [1, 2, 3, 4]',
    "['d', 'a', 'b', 'c'].sort() == ['a', 'b', 'c', 'd']",
    "[duration('2s'), duration('1s')].sort() == [duration('1s'), duration('2s')]",
    '[true, false].sort() == [false, true]',
    '[].sortBy(e, e) == []',
    '[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]',
    '[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]',
    'lists.range(3).sortBy(e, -e) == [2, 1, 0]',
    "['a', 'c', 'b', 'first'].sortBy(e, e == 'first' ? '' : e) == ['first', 'a', 'b', 'c']",
    "[{'x': 4}, {'x': 3}].sortBy(m, m['x']) == [{'x': 3}, {'x': 4}]",
    '[-2, 5, -2, 1, 1, 5, -2, 1].distinct() == [-2, 5, 1]',
    "[1, 2.0, 'c', 3, 'c', 1].distinct() == [1, 2.0, 'c', 3]",
    '[1, 1.0, 2].distinct() == [1, 2]',
    '[[1], [1], [2]].distinct() == [[1], [2]]',
    '[3, 1, 3].distinct().sort().reverse() == [3, 1]',
  ])('%s', (source) => {
    expect(evaluate(source)).toBe(true);
  });

  test('a list from the request sorts and deduplicates', () => {
    expect(
      evaluate('object.l.sort() == [1, 2, 3] && object.l.distinct().size() == 3 && object.m.sortBy(x, x.k).map(x, x.k) == ["a", "b"]', {
        object: { l: [3, 1, 2], m: [{ k: 'b' }, { k: 'a' }] },
      }),
    ).toBe(true);
  });

  test.each([
    ['[1, 2, 3, 4].slice(3, 0)', 'cannot slice(3, 0), start index must be less than or equal to end index'],
    ['[1, 2, 3, 4].slice(0, 10)', 'cannot slice(0, 10), list is length 4'],
    ['[1, 2, 3, 4].slice(-5, 10)', 'cannot slice(-5, 10), negative indexes not supported'],
    ['[1, [2, [3, [4]]]].flatten(-1)', 'level must be non-negative'],
    ["['d', 3, 2, 'c'].sort()", 'list elements must have the same type'],
    ['[[1], [2]].sort()', 'list elements must be comparable'],
    ['[1, 2].sortBy(e, [e])', 'list elements must be comparable'],
  ])('%s is an error', (source, message) => {
    expect(evaluate(source)).toEqual({ error: message });
  });

  test.each([
    ['[1].sortBy(e.f, e)', 'argument is not an identifier'],
    ['{}.sortBy(e, e)', 'sortBy can only be applied to a list, identifier, comprehension, call or select expression'],
    ['[1].sortBy(__result__, 1)', 'iteration variable overwrites accumulator variable'],
  ])('the macro refuses %s', (source, message) => {
    expect(() => compileExpression(source, [])).toThrow(message);
  });

  test("the runtime cost is the trackers': a quadratic sort of a long list passes the per-call limit", () => {
    const run = (n: number) => compileExpression('l.sort().size() > 0', ['l']).run({ l: toCel(Array.from({ length: n }, (_, i) => n - i)) }, null);
    expect(run(600)).toBe(true);
    expect(String((run(800) as { message?: string }).message)).toContain('actual cost limit exceeded');
  });
});
