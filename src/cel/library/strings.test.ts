import { evaluate } from './test-eval';

describe('ext strings where kapi corrects the evaluator', () => {
  test.each([
    ["'a,b,c'.split(',', 2)", ['a', 'b,c']],
    ["'a,b,c'.split(',', 3)", ['a', 'b', 'c']],
    ["'a,b,c'.split(',', 5)", ['a', 'b', 'c']],
    ["'a,b,c'.split(',', 1)", ['a,b,c']],
    ["'a,b,c'.split(',', 0)", []],
    ["'a,b,c'.split(',', -1)", ['a', 'b', 'c']],
    ["'abc'.split('', 2)", ['a', 'bc']],
    ["'a,b,c'.split(',')", ['a', 'b', 'c']],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });
});
