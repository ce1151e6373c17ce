import { evaluate } from './library/test-eval';
import { compileExpression } from '../admission/policy/cel';
import { blankOptionalMarkers, parseCel } from './parse';

const o = { a: { b: 1, l: [1, 2, 3] }, m: { x: 1, y: 2 } };

describe('optional syntax', () => {
  test('a marker is blanked in place; strings, comments and conditionals keep their ?', () => {
    const source = `a.?b ? [?x, 'y?', ?z] : {?k: v} // ?\n`;
    const { text, marks } = blankOptionalMarkers(source);
    expect(text).toBe(`a. b ? [ x, 'y?',  z] : { k: v} // ?\n`);
    expect(marks.map((m) => m.kind)).toEqual(['select', 'bracket', 'element', 'entry']);
  });

  test('the tree is cel-go’s: calls _?._ and _[?_], optional indices and entries', () => {
    const parsed = parseCel("a.?b[?0] + [1, ?x] + [{?'k': y}]");
    const text = JSON.stringify(parsed.expr, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
    expect(text).toContain('"function":"_?._"');
    expect(text).toContain('"function":"_[?_]"');
    expect(text).toContain('"optionalIndices":[1]');
    expect(text).toContain('"optionalEntry":true');
  });

  test.each([
    ['o.?a.?b.value()', 1],
    ['o.?a.?c.hasValue()', false],
    ['o.?a.?b.orValue(5)', 1],
    ['o.?z.b.orValue(5)', 5],
    ['o.?a.b.hasValue()', true],
    ['o.?a.zz.hasValue()', false],
    ['o.a.l[?1].value()', 2],
    ['o.a.l[?7].hasValue()', false],
    ['o.m[?"x"].value()', 1],
    ['o.?a.l[5].orValue(0)', 0],
    ['[1, ?optional.none(), ?optional.of(3), 4]', [1, 3, 4]],
    ['[?o.?a.?b, ?o.?nothing]', [1]],
    ['{"a": 1, ?"b": optional.none(), ?"c": optional.of(2)}', { a: 1, c: 2 }],
    ['o.?a.?b == optional.of(1)', true],
  ])('%s', (source, expected) => {
    expect(evaluate(source, { o })).toEqual(expected);
  });

  test('an optional element that is no optional value is an error', () => {
    expect(evaluate('[?1]')).toEqual({ error: 'cannot initialize optional list element from non-optional value 1' });
  });

  test.each([['[?]'], ['a.?b()'], ['a[?]'], ['f(?a)']])('%s does not parse', (source) => {
    expect(() => compileExpression(source, ['a'])).toThrow(/^ERROR: <input>:1:\d+: Syntax error: /);
  });
});

describe('two-variable comprehensions', () => {
  test.each([
    ['[1, 2, 3].all(i, v, v > i)', true],
    ['[1, 2, 3].all(i, v, v > i + 1)', false],
    ['[1, 2, 3].exists(i, v, i == 2 && v == 3)', true],
    ['[1, 2, 3].existsOne(i, v, v > 1)', false],
    ['[1, 2, 3].exists_one(i, v, v > 2)', true],
    ['[1, 2, 3].transformList(i, v, i * v)', [0, 2, 6]],
    ['[1, 2, 3].transformList(i, v, i > 0, i * v)', [2, 6]],
    ['o.m.transformMap(k, v, v + 10)', { x: 11, y: 12 }],
    ['o.m.transformMap(k, v, k == "x", v + 10)', { x: 11 }],
    ['o.m.transformMapEntry(k, v, {string(v): k})', { '1': 'x', '2': 'y' }],
    ['o.m.all(k, v, v > 0 && k != "")', true],
    ['[[1, 2], [3]].all(i, l, l.all(j, v, v > i + j))', true],
    ['[10, 20].transformMap(i, v, v / 10)', { '0': 1, '1': 2 }],
    ['o.m.exists(k, v, k == "y" && v == 2) && o.m.exists(k, k == "x")', true],
  ])('%s', (source, expected) => {
    expect(evaluate(source, { o })).toEqual(expected);
  });

  test('transformMapEntry refuses a key twice, in cel-go words', () => {
    expect(evaluate('o.m.transformMapEntry(k, v, {"same": k})', { o })).toEqual({ error: 'insert failed: key same already exists' });
  });

  test.each([
    ['x.all(k, k, true)', 'ERROR: <input>:1:10: duplicate variable name: k\n | x.all(k, k, true)\n | .........^'],
    ['x.all(1, k, true)', 'ERROR: <input>:1:7: argument must be a simple name\n | x.all(1, k, true)\n | ......^'],
    ['x.transformList(@result, v, v)', ''],
  ])('%s: the macro’s error', (source, message) => {
    if (message) expect(() => compileExpression(source, ['x'])).toThrow(message);
    else expect(() => compileExpression(source, ['x'])).toThrow();
  });
});
