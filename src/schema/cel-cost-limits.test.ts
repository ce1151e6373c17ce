import { estimateCost } from '../cel/cost-estimate';
import { parseCel } from '../cel/parse';
import { celCostErrors, costErrorMessage } from './cel-cost-limits';
import { schemaDeclType } from './cel-decl-type';
import type { JSONSchemaProps } from './json-schema-props';

/** The estimated max cost of a rule with `self` of the schema's type. */
function cost(rule: string, s: JSONSchemaProps, root = false): number {
  const self = schemaDeclType(s, root)!;
  return estimateCost(parseCel(rule).expr, {
    root: self,
    vars: new Map([
      ['self', self],
      ['oldSelf', self],
    ]),
  }).max;
}

const tags = (maxItems?: number, maxLength?: number): JSONSchemaProps => ({ type: 'array', maxItems, items: { type: 'string', maxLength } });
const named: JSONSchemaProps = { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } };
const at = 'spec.versions[0].schema.openAPIV3Schema';
const hint = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

describe('estimated rule cost (cel-go checker/cost.go formulas, worked by hand)', () => {
  test('selection, equality with a literal, regex, presence', () => {
    // self 1 + .name 1 on an object; == traverses the shorter side: min(4*10, 3) * 0.1 rounded up = 1
    expect(cost("self.name == 'foo'", named)).toBe(3);
    // matches: ceil((40 + 1) * 0.1) = 5 times ceil(len('^[a-z]+$') * 0.25) = 2, plus the target's 2
    expect(cost("self.name.matches('^[a-z]+$')", named)).toBe(12);
    // has() costs nothing in kube (PresenceTestHasCost(false)); its operand self costs 1
    expect(cost('has(self.name)', named)).toBe(1);
    // size() is O(1): 1 plus its target's 2
    expect(cost('self.name.size() <= 5', named)).toBe(4);
  });

  test('all() over a bounded list of bounded strings: N * (ceil(0.4 L) + 4) + 2', () => {
    // per item: @not_strictly_false(@result) 2, @result && x.contains('gpu') 1 + 1 + ceil(4L * 0.1) * ceil(3 * 0.1)
    expect(cost("self.all(x, x.contains('gpu'))", tags(10, 16))).toBe(10 * 11 + 2);
    expect(cost("self.all(x, x.contains('gpu'))", tags(1000, 1024))).toBe(1000 * 414 + 2);
    // unset bounds: (3 MiB - 2) / 3 items of 3 MiB - 2 bytes (a request's worth, not times 4)
    expect(cost("self.all(x, x.contains('gpu'))", tags())).toBe(1_048_575 * (Math.ceil(0.1 * 3_145_726) + 4) + 2);
  });

  test('map() builds a list step by step; exists() negates its accumulator', () => {
    // range 1, accumulator [] 10, result 1, each step @result + [x] = 1 + 1 + (10 + 1); then size() 1 and > 1
    expect(cost('self.map(x, x).size() > 0', tags(5, 1))).toBe(1 + 10 + 1 + 5 * 13 + 1 + 1);
    // exists: @not_strictly_false(!@result) 3 + (@result || x == 'a') 1 + 1 + ceil(min(4, 1) * 0.1)
    expect(cost("self.exists(x, x == 'a')", tags(5, 1))).toBe(1 + 1 + 5 * 6);
  });

  test('kube library calls: lowerAscii traverses its target, isSorted each element', () => {
    // lowerAscii: ceil(40 * 0.1) = 4 + target 2; then == 'a' with the result's size 40: 1
    expect(cost("self.name.lowerAscii() == 'a'", named)).toBe(7);
    // isSorted on strings of 4 bytes: 5 items * (1 + ceil(4 * 0.1)) + target 1
    expect(cost('self.isSorted()', tags(5, 1))).toBe(11);
  });
});

describe("kube's own expected estimates (apiextensions-apiserver schema/cel compilation_test.go TestCostEstimation)", () => {
  type Gen = (max?: number) => JSONSchemaProps;
  const primitive = (type: string): JSONSchemaProps =>
    type === 'int-or-string'
      ? { 'x-kubernetes-int-or-string': true }
      : ['duration', 'date', 'date-time'].includes(type)
        ? { type: 'string', format: type }
        : { type: type as JSONSchemaProps['type'] };
  const array =
    (type: string): Gen =>
    (max) => ({ type: 'array', maxItems: max, items: primitive(type) });
  const map =
    (type: string): Gen =>
    (max) => ({ type: 'object', maxProperties: max, additionalProperties: primitive(type) });
  const string: Gen = (max) => ({ type: 'string', maxLength: max });
  const bytes: Gen = (max) => ({ type: 'string', format: 'byte', maxLength: max });
  const strings: Gen = (max) => ({ type: 'array', maxItems: max, items: { type: 'string', maxLength: max } });
  // [generator, rule, cost without bounds (null: only said to exceed the limit), bound, cost with it]
  const cases: [Gen, string, number | null, number, number][] = [
    [array('number'), 'self.all(x, true)', 4718591, 10, 32],
    [array('string'), 'self.all(x, true)', 3145727, 20, 62],
    [array('boolean'), 'self.all(x, true)', 1887437, 5, 17],
    [map('number'), 'self.all(x, true)', 1348169, 10, 32],
    [map('boolean'), 'self.all(x, true)', 943718, 100, 302],
    [string, "self.contains('test')", 314574, 10, 5],
    [string, "self.startsWith('test')", 2, 15, 2],
    [string, 'size(self + "hello") > size("hello")', 314578, 4, 7],
    [array('number'), 'self[1] == 0.0', 2, 5000, 2],
    [array('string'), 'self[1] == self[1]', 314577, 8, 314577],
    [array('number'), 'self.all(x, self.all(y, true))', null, 10, 352],
    [array('number'), 'self.all(x, self.all(y, self.all(z, true)))', null, 10, 3552],
    [string, 'self.matches("x")', 314574, 50, 22],
    [string, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
    [string, 'self.matches("")', 1, 100, 1],
    [string, 'self == "x"', 2, 0, 1],
    [bytes, 'self == b"x"', 2, 0, 1],
    [array('number'), 'self.all(x, x == 0.0)', 6291454, 3 * 1024 * 2048, 25165826],
    [array('int-or-string'), 'self[0] == 5', 3, 10, 3],
    [array('boolean'), 'self[0] == false', 2, 25, 2],
    [array('duration'), 'self.all(x, true)', 2359295, 5, 17],
    [array('duration'), 'self[0].getHours() == 2', 4, 525, 4],
    [array('date'), 'self.all(x, true)', 725936, 15, 47],
    [array('date-time'), 'self.all(x, true)', 428963, 25, 77],
    [map('int-or-string'), 'self.all(x, true)', 1348169, 15, 47],
    [map('duration'), 'self.all(x, true)', 1048577, 5, 17],
    [map('date'), 'self.all(x, true)', 524288, 10, 32],
    [map('date-time'), 'self.all(x, true)', 349526, 25, 77],
    [string, "self.find('[0-9]+') == ''", 629147, 10, 11],
    [strings, "self.join(' ') == 'aa bb'", 329853068905, 10, 43],
    [strings, 'self.isSorted() == true', 329854432052, 10, 52],
  ];
  test.each(cases.map(([gen, rule, unbounded, max, bounded]) => ({ gen, rule, unbounded, max, bounded })))(
    '$rule (case $#)',
    ({ gen, rule, unbounded, max, bounded }) => {
      if (unbounded === null) expect(cost(rule, gen())).toBeGreaterThan(10_000_000);
      else expect(cost(rule, gen())).toBe(unbounded);
      expect(cost(rule, gen(max))).toBe(bounded);
    },
  );
});

describe('cost error messages (getCostErrorMessage)', () => {
  test('factor formats', () => {
    expect(costErrorMessage('estimated rule cost', 11_000_003, 10_000_000)).toBe(`estimated rule cost exceeds budget by factor of 1.100000x ${hint}`);
    expect(costErrorMessage('estimated rule cost', 22_500_000, 10_000_000)).toBe(`estimated rule cost exceeds budget by factor of 2.2x ${hint}`);
    expect(costErrorMessage('estimated rule cost', 1e12, 10_000_000)).toBe(`estimated rule cost exceeds budget by factor of more than 100x ${hint}`);
  });
});

describe('CRD cost limits', () => {
  const crd = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

  test('a rule over StaticEstimatedCostLimit, and the total it makes', () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      properties: { tags: tags() },
      'x-kubernetes-validations': [{ rule: "self.tags.all(t, t.contains('gpu'))" }],
    };
    const rule = `${at}.properties[spec].x-kubernetes-validations[0].rule`;
    expect(celCostErrors(crd(spec), at)).toEqual([
      { type: 'FieldValueForbidden', field: rule, detail: `estimated rule cost exceeds budget by factor of more than 100x ${hint}` },
      { type: 'FieldValueForbidden', field: rule, detail: 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema' },
      {
        type: 'FieldValueForbidden',
        field: at,
        detail: `x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${hint}`,
      },
    ]);
    // 1,000,000 tags of 16 characters: 1,000,000 * 11 + 3 (self.tags costs 2)
    const bounded = { ...spec, properties: { tags: tags(1_000_000, 16) } };
    expect(celCostErrors(crd(bounded), at)[0].detail).toBe(`estimated rule cost exceeds budget by factor of 1.100000x ${hint}`);
    expect(celCostErrors(crd({ ...spec, properties: { tags: tags(100_000, 16) } }), at)).toEqual([]);
    // an unchanged schema on update: the total only
    expect(celCostErrors(crd(bounded), at, false)).toEqual([]);
    expect(celCostErrors(crd(spec), at, false).map((e) => e.field)).toEqual([rule, at]);
  });

  test("rules in the optional syntax and two-variable comprehensions are estimated; string() of a number has no size bound (kube's issue 124234)", () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      properties: {
        // 7 per item (optional selects typed as their fields: an int comparison), times the 1,048,576 items that fit in 3 MiB
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { max: { type: 'integer' }, size: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.?max.orValue(100) >= self.?size.orValue(0)' }],
          },
        },
        tags: { ...tags(), 'x-kubernetes-validations': [{ rule: "self.all(i, t, t.contains('gpu'))" }] },
        config: {
          type: 'object',
          properties: { attempts: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.attempts >= 0', messageExpression: "'invalid attempts: ' + string(self.attempts)" }],
        },
      },
    };
    const errs = celCostErrors(crd(spec), at).filter((e) => !e.detail?.startsWith('contributed'));
    const props = `${at}.properties[spec].properties`;
    expect(errs).toEqual([
      {
        type: 'FieldValueForbidden',
        field: `${props}[tags].x-kubernetes-validations[0].rule`,
        detail: `estimated rule cost exceeds budget by factor of more than 100x ${hint}`,
      },
      {
        type: 'FieldValueForbidden',
        field: `${props}[config].x-kubernetes-validations[0].messageExpression`,
        detail: `estimated messageExpression cost exceeds budget by factor of more than 100x ${hint}`,
      },
      {
        type: 'FieldValueForbidden',
        field: at,
        detail: `x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${hint}`,
      },
    ]);
    const item = spec.properties!.items.items as JSONSchemaProps;
    expect(cost(item['x-kubernetes-validations']![0].rule!, item)).toBe(7);
  });

  test('rules on the items of an unbounded list count as often as an item fits in 3 MiB; bounded lists multiply their maxItems', () => {
    const rule = "self.name == 'a' || self.name == 'b' || self.name == 'c'"; // 3 + 3 + 3
    const item = (n: number): JSONSchemaProps => ({
      type: 'object',
      properties: { name: { type: 'string' } },
      'x-kubernetes-validations': Array.from({ length: n }, () => ({ rule })),
    });
    // each: 9 * floor(3 MiB / (2 + 1)) = 9,437,184, under the rule limit; 11 of them 103,809,024
    const errs = celCostErrors(crd({ type: 'object', properties: { items: { type: 'array', items: item(11) } } }), at);
    const rules = `${at}.properties[spec].properties[items].items.x-kubernetes-validations`;
    expect(errs.map((e) => e.field)).toEqual([0, 1, 2, 3].map((i) => `${rules}[${i}].rule`).concat(at));
    expect(errs[4].detail).toBe(`x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.038090x ${hint}`);
    expect(celCostErrors(crd({ type: 'object', properties: { items: { type: 'array', items: item(10) } } }), at)).toEqual([]);
    expect(celCostErrors(crd({ type: 'object', properties: { items: { type: 'array', maxItems: 100, items: item(11) } } }), at)).toEqual([]);
  });
});
