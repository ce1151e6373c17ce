import { estimateCost, type CelType } from './cost-estimate';
import { parseCel } from './parse';

/** The estimate of an expression over the variable `m` (the root kube's size estimator walks paths from). */
function estimate(expr: string, m: CelType = { kind: 'dyn' }, more: [string, CelType][] = []): [number, number] {
  const { min, max } = estimateCost(parseCel(expr).expr, { root: m, vars: new Map([['m', m], ...more]) });
  return [min, max];
}

describe("two-variable comprehensions: cel-go's own expected estimates (ext/comprehensions_test.go TestTwoVarComprehensionsCost)", () => {
  const intMap: CelType = { kind: 'map', key: { kind: 'int' }, elem: { kind: 'int' }, maxElements: 3 };
  const stringMap: CelType = { kind: 'map', key: { kind: 'string', maxElements: 16 }, elem: { kind: 'string', maxElements: 128 }, maxElements: 3 };
  const listMap: CelType = {
    kind: 'map',
    key: { kind: 'string', maxElements: 16 },
    elem: { kind: 'list', elem: { kind: 'int' }, maxElements: 10 },
    maxElements: 5,
  };
  const scalarMap: CelType = { kind: 'map', key: { kind: 'string', maxElements: 16 }, elem: { kind: 'int', maxElements: 10 }, maxElements: 5 };
  const cases: [string, CelType | undefined, number, number][] = [
    ['[1, 2, 3, 4].all(i, v, i < 5 && v > 0)', undefined, 23, 39],
    ['{1: 1, 2: 2, 3: 3}.all(i, v, i < 5 && v > 0)', undefined, 40, 52],
    ['!{0: 0}.all(i, v, i < 5 && v > 0)', undefined, 35, 39],
    ['m.all(i, v, i < 5 && v > 0)', intMap, 2, 23],
    ['m.all(k, v, k < v)', stringMap, 2, 23],
    ['[].transformList(i, v, v) == []', undefined, 31, 31],
    ['[1].transformList(i, v, i) == [0]', undefined, 45, 45],
    ['[3, 2, 1].transformList(i, v, v > i, v) == [3, 2]', undefined, 44, 80],
    ['[].transformMap(k, v, v + 1) == {}', undefined, 71, 71],
    ['{}.transformMap(k, v, v + 1) == {}', undefined, 91, 91],
    ['{1: 2}.transformMap(k, v, v + 1) == {1: 3}', undefined, 97, 97],
    ['{1: 2, 3: 4, 5: 6}.transformMap(k, v, k % 3 == 0, v + 1) == {3: 5}', undefined, 104, 116],
    ["m.transformMap(k, v, k.startsWith('legacy') && v.size() == 1, v + [2]) == {'legacy-solo': [1, 2]}", listMap, 73, 173],
    ['{1: 2}.transformMapEntry(k, v, {v: k}) == {2: 1}', undefined, 126, 126],
    ['m.transformMapEntry(k, v, {v: k}) == m.transformMapEntry(k, v, {v: k})', scalarMap, 65, 405],
  ];
  test.each(cases)('%s', (expr, m, min, max) => {
    expect(estimate(expr, m)).toEqual([min, max]);
  });
});

describe('the optional syntax, costed as cel-go costs the calls its checker types optional(T)', () => {
  const self: CelType = {
    kind: 'object',
    fields: new Map<string, CelType>([
      ['size', { kind: 'int' }],
      ['name', { kind: 'string', maxElements: 40 }],
      ['limits', { kind: 'object', fields: new Map([['max', { kind: 'int' }]]) }],
      ['steps', { kind: 'list', elem: { kind: 'int' }, maxElements: 100 }],
    ]),
  };
  const withSelf = (expr: string, oldSelf: CelType = self): [number, number] =>
    estimate(expr, self, [
      ['self', self],
      ['oldSelf', oldSelf],
    ]);

  test('optional selections and indexing cost 1 each and keep their field type, so comparisons of their values are O(1)', () => {
    // self 1, `_?._` 1 (the field name 0), orValue 1: 4 on the left, 3 on the right, the int comparison 1
    expect(withSelf('self.?limits.?max.orValue(100) >= self.?size.orValue(0)')).toEqual([8, 8]);
    // self.steps 2, `_[?_]` 1, orValue 1, > 1
    expect(withSelf('self.steps[?0].orValue(1) > 0')).toEqual([5, 5]);
    // a selection on an optional value adds no select cost (cel-go: only maps and messages do): 2, 0, 1, == 1
    expect(withSelf('self.?limits.max.orValue(1) == 1')).toEqual([4, 4]);
  });

  test('optional list elements and map entries cost as plain ones', () => {
    // the element 2, the list 10, size() 1, > 1
    expect(withSelf('[?self.?name].size() > 0')).toEqual([14, 14]);
    expect(withSelf("{?'a': self.?name}.size() > 0")).toEqual([34, 34]);
  });

  test('a value read through `.?` has no field path, so its size is unknown (kube sizes only paths from self)', () => {
    expect(withSelf("self.?name.orValue('').matches('^a$')")[1]).toBeGreaterThan(1e18);
    // self.name 2, then ceil((size + 1) * 0.1) times ceil(4 * 0.25): 1 at size 0, 5 at 40
    expect(withSelf("self.name.matches('^a$')")).toEqual([3, 7]);
  });

  test('optionalOldSelf: oldSelf is optional(self)', () => {
    const old: CelType = { kind: 'optional', elem: self };
    // hasValue 2, value() 2 + .size 1 (object select), self.size 2, >= 1; the false branch 0
    expect(withSelf('oldSelf.hasValue() ? self.size >= oldSelf.value().size : true', old)).toEqual([2, 8]);
  });
});

test("conversions to string have no size bound in cel-go (checker/cost_test.go 'str size estimate')", () => {
  const ts: CelType = { kind: 'timestamp' };
  const [min, max] = estimate('string(m) == string(t)', ts, [['t', ts]]);
  expect(min).toBe(5);
  // cel-go: 1844674407370955268, the traversal of an unknown string (uint64 max times 0.1) plus the operands
  expect(max).toBeGreaterThan(1.8e18);
});

describe("the lists extension: cel-go's own expected estimates (ext/lists_test.go TestListsCosts)", () => {
  const MAX = 2 ** 64;
  const list = (elem: CelType, maxElements: number): CelType => ({ kind: 'list', elem, maxElements });
  const int: CelType = { kind: 'int' };
  const cases: [string, CelType | undefined, number, number][] = [
    ['lists.range(4) == [0, 1, 2, 3]', undefined, 26, 26],
    ['lists.range(4 / 2) == [0, 1]', undefined, MAX, MAX],
    ['[[1, 2], 3].flatten(1) == [1, 2, 3]', undefined, 44, 44],
    ['[[1, 2], 3].flatten(3) == [1, 2, 3]', undefined, 48, 48],
    ['[[1], 2, 3].flatten() == [1, 2, 3]', undefined, 45, 45],
    ['[1, 2, 3].distinct() == [1, 2, 3]', undefined, 50, 50],
    ["m.distinct() == ['hello']", list({ kind: 'string' }, 3), 23, 41],
    ['m.slice(1, 3) == [2, 3]', list(int, 10), 25, 25],
    ['[1, 2, 3].slice(1, 3) == [2, 3]', undefined, 34, 34],
    ['[3, 2, 1].reverse() == [1, 2, 3]', undefined, 35, 35],
    ['m.reverse() == [1, 2, 3]', list(int, 5), 23, 28],
    ['[2, 3, 1].sort() == [1, 2, 3]', undefined, 50, 50],
    ['m.sort() == [1, 2, 3]', list(int, 5), 23, 73],
    ["m.sort() == ['a', 'a', 'b', 'b', 'c', 'c']", list({ kind: 'string' }, 10), 23, 233],
    ['m.sort() == []', list(int, 10), 22, 222],
    ["[{'x': 4}, {'x': 3}].sortBy(e, e['x']) == [{'x': 3}, {'x': 4}]", undefined, 211, 211],
    ["m.sortBy(e, e['x']) == [{'x': 3}, {'x': 4}]", list({ kind: 'dyn' }, 5), 106, 226],
  ];
  test.each(cases)('%s', (expr, m, min, max) => {
    expect(estimate(expr, m)).toEqual([min, max]);
  });

  test('a slice between variables costs the whole list', () => {
    expect(
      estimate('[1, 2, 3, 4, 5].slice(x, y) == [2, 3]', undefined, [
        ['x', { kind: 'int' }],
        ['y', { kind: 'int' }],
      ]),
    ).toEqual([39, 39]);
  });
});
