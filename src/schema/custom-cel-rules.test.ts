import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { fieldErrorMessage } from '../api/field-errors';
import { CelRules, celRuleErrors } from './custom-cel-rules';
import type { JSONSchemaProps } from './json-schema-props';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
        { rule: "!has(self.mode) || self.mode.startsWith('x')", messageExpression: "'mode ' + self.mode + ' must start with x'" },
        { rule: 'self.minReplicas > 0', fieldPath: '.minReplicas', reason: 'FieldValueForbidden' },
        { rule: '!has(self.ports) || self.ports.isSorted()', message: 'ports must be sorted' },
      ],
      properties: {
        minReplicas: { type: 'integer' },
        maxReplicas: { type: 'integer' },
        mode: { type: 'string' },
        name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }] },
        ports: { type: 'array', items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 65536' }] } },
        ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self < 1.0' }] },
      },
    },
  },
};

const rules = new CelRules(schema);
const messages = (obj: Record<string, unknown>, old?: Record<string, unknown>): string[] =>
  (old ? rules.validateUpdate(obj, old, () => {}) : rules.validate(obj)).map(fieldErrorMessage);

/** encoding/json's text of a string: HTML characters escaped. */
const goString = (s: string): string => JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
/** The rule in CRD validation errors: kube's internal ValidationRule as field.Error marshals it (1.34+). */
const value = (rule: string, message = '') =>
  `{"Rule":${goString(rule)},"Message":${goString(message)},"MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}`;

describe('CEL validation rules', () => {
  test('rules that hold give no errors; integers are ints, numbers doubles', () => {
    expect(messages({ spec: { minReplicas: 1, maxReplicas: 3, mode: 'xy', ports: [80, 443], ratio: 0.5 } })).toEqual([]);
  });

  test('a failed rule reports its message, message expression or the rule itself, with kube field errors', () => {
    expect(messages({ spec: { minReplicas: 0, maxReplicas: -1, mode: 'ab', ports: [70000], ratio: 1.5 } })).toEqual([
      'spec: Invalid value: minReplicas must not exceed maxReplicas',
      'spec: Invalid value: mode ab must start with x',
      'spec.minReplicas: Forbidden: failed rule: self.minReplicas > 0',
      'spec.ports[0]: Invalid value: 70000: failed rule: self < 65536',
      'spec.ratio: Invalid value: 1.5: failed rule: self < 1.0',
    ]);
  });

  test("rules may use Kubernetes' CEL libraries (lists, quantity, ...)", () => {
    expect(messages({ spec: { minReplicas: 1, maxReplicas: 3, ports: [443, 80] } })).toEqual(['spec: Invalid value: ports must be sorted']);
    const quantities = new CelRules({
      type: 'object',
      properties: {
        limit: { type: 'string', 'x-kubernetes-validations': [{ rule: "quantity(self).isLessThan(quantity('1Gi'))", message: 'must be under 1Gi' }] },
      },
    });
    expect(quantities.validate({ limit: '512Mi' })).toEqual([]);
    expect(quantities.validate({ limit: '2Gi' }).map(fieldErrorMessage)).toEqual(['limit: Invalid value: "2Gi": must be under 1Gi']);
  });

  test("a rule whose evaluation fails refuses the object with kube's message: never skipped", () => {
    expect(messages({ spec: { maxReplicas: 1 } })).toEqual([
      'spec: Invalid value: "object": no such key: minReplicas evaluating rule: minReplicas must not exceed maxReplicas',
      'spec: Invalid value: "object": no such key: minReplicas evaluating rule: self.minReplicas > 0',
    ]);
    const failing = new CelRules({
      type: 'object',
      properties: {
        n: { type: 'integer', 'x-kubernetes-validations': [{ rule: '10 / self > 1' }] },
        m: { type: 'integer', 'x-kubernetes-validations': [{ rule: '[1, 2][self] > 0' }] },
        v: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self + 1 > 0', message: 'v must be positive' }] },
        f: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.noSuchFunction()' }] },
      },
    });
    expect(failing.validate({ n: 0, m: 5, v: 'x', f: 'a' }).map(fieldErrorMessage)).toEqual([
      'n: Invalid value: "integer": division by zero evaluating rule: 10 / self > 1',
      'm: Invalid value: "integer": index out of bounds: 5 evaluating rule: [1, 2][self] > 0',
      `v: Invalid value: "": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: v must be positive`,
      `f: Invalid value: "string": 'no such overload: noSuchFunction': call arguments did not match a supported operator, function or macro signature for rule: self.noSuchFunction()`,
    ]);
  });

  test('duration, date, date-time and byte strings are typed as UnstructuredToVal types them', () => {
    const typed = new CelRules({
      type: 'object',
      properties: {
        ttl: { type: 'string', format: 'duration', 'x-kubernetes-validations': [{ rule: "self < duration('1h')", message: 'ttl must be under 1h' }] },
        grace: { type: 'string', format: 'duration', 'x-kubernetes-validations': [{ rule: "self == duration('72h')" }] },
        day: { type: 'string', format: 'date', 'x-kubernetes-validations': [{ rule: "self < timestamp('2030-01-01T00:00:00Z')" }] },
        at: { type: 'string', format: 'date-time', 'x-kubernetes-validations': [{ rule: 'self.getFullYear() == 2025' }] },
        raw: { type: 'string', format: 'byte', 'x-kubernetes-validations': [{ rule: "self == b'hi'" }] },
      },
    });
    expect(typed.validate({ ttl: '30m', grace: '3 days', day: '2029-12-31', at: '2025-06-01T10:00:00+02:00', raw: 'aGk=' })).toEqual([]);
    expect(typed.validate({ ttl: '1h30m', grace: '1d', day: '2031-01-01', at: '2026-01-01t00:00:00z', raw: 'aGo=' }).map(fieldErrorMessage)).toEqual([
      'ttl: Invalid value: "1h30m": ttl must be under 1h',
      `grace: Invalid value: "1d": failed rule: self == duration('72h')`,
      `day: Invalid value: "2031-01-01": failed rule: self < timestamp('2030-01-01T00:00:00Z')`,
      'at: Invalid value: "2026-01-01t00:00:00z": failed rule: self.getFullYear() == 2025',
      `raw: Invalid value: "aGo=": failed rule: self == b'hi'`,
    ]);
  });

  test("a failure is reported at the rule's fieldPath, normalized as field.Path prints it, under the node (at the root, alone); a scalar's value shown, an object's not", () => {
    const pathRules = new CelRules({
      type: 'object',
      'x-kubernetes-validations': [{ rule: "self.spec.name != 'x'", fieldPath: '.spec.name', reason: 'FieldValueForbidden', message: 'no x' }],
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [
            { rule: "self.a__dot__b != 'x'", fieldPath: "['a.b']" },
            { rule: "!('x' in self.labels)", fieldPath: ".labels['x']", message: 'no label x' },
          ],
          properties: {
            name: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'x'", reason: 'FieldValueDuplicate', message: 'taken' }] },
            'a.b': { type: 'string' },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
      },
    });
    expect(pathRules.validate({ spec: { name: 'x', 'a.b': 'x', labels: { x: '1' } } }).map(fieldErrorMessage)).toEqual([
      'spec.name: Forbidden: no x',
      `spec.a.b: Invalid value: failed rule: self.a__dot__b != 'x'`,
      'spec.labels[x]: Invalid value: no label x',
      // field.Duplicate has no detail
      'spec.name: Duplicate value: "x"',
    ]);
  });

  test('transition rules run on updates only, against the old value', () => {
    const base = { minReplicas: 1, maxReplicas: 1 };
    expect(messages({ spec: { ...base, name: 'a' } })).toEqual([]);
    expect(messages({ spec: { ...base, name: 'b' } }, { spec: { ...base, name: 'a' } })).toEqual(['spec.name: Invalid value: "b": name is immutable']);
    expect(messages({ spec: { ...base, name: 'b' } }, { spec: base })).toEqual([]);
  });

  test('transition rules run on the items of listType map lists, matched by key, on the values of maps, atomic ones too (MapIsCorrelatable), and with optionalOldSelf on creates too', () => {
    const listRules = new CelRules({
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.port >= oldSelf.port', message: 'port may only grow' }],
          },
        },
        tags: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'tags are never correlated' }] } },
        labels: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          additionalProperties: {
            type: 'string',
            'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'atomic map values are correlated by key' }],
          },
        },
        phase: {
          type: 'string',
          'x-kubernetes-validations': [
            { rule: "oldSelf.hasValue() ? self == oldSelf.value() : self == 'New'", optionalOldSelf: true, message: 'phase starts New and stays' },
          ],
        },
      },
    });
    const before = {
      ports: [
        { name: 'a', port: 80 },
        { name: 'b', port: 90 },
      ],
      tags: ['x'],
      labels: { k: 'v' },
      phase: 'New',
    };
    const after = {
      ports: [
        { name: 'b', port: 89 },
        { name: 'a', port: 81 },
        { name: 'c', port: 1 },
      ],
      tags: ['y'],
      labels: { k: 'w' },
      phase: 'Old',
    };
    expect(listRules.validateUpdate(after, before, () => {}).map(fieldErrorMessage)).toEqual([
      'ports[0]: Invalid value: port may only grow',
      'labels[k]: Invalid value: "w": atomic map values are correlated by key',
      'phase: Invalid value: "Old": phase starts New and stays',
    ]);
    expect(listRules.validate({ phase: 'Old' }).map(fieldErrorMessage)).toEqual(['phase: Invalid value: "Old": phase starts New and stays']);
    expect(listRules.validate({ phase: 'New', ports: [{ name: 'a', port: 1 }] })).toEqual([]);
  });

  test("ratcheting: a rule without oldSelf that fails on an unchanged node is a warning on update; a changed node's failure is an error", () => {
    const tightened = new CelRules({
      type: 'object',
      properties: {
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self <= 10', message: 'size must be at most 10' }] },
            items: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 3' }] } },
          },
        },
      },
    });
    const old = { metadata: { name: 'a' }, spec: { size: 20, items: ['long'] } };
    const warnings: string[] = [];
    expect(
      tightened.validateUpdate({ metadata: { name: 'a', finalizers: ['x/y'] }, spec: { size: 20, items: ['long'] } }, old, (w) => warnings.push(w)),
    ).toEqual([]);
    expect(warnings).toEqual(['spec.size: Invalid value: 20: size must be at most 10', 'spec.items[0]: Invalid value: "long": failed rule: self.size() < 3']);
    expect(tightened.validateUpdate({ metadata: { name: 'a' }, spec: { size: 21, items: ['long', 'ok'] } }, old, () => {}).map(fieldErrorMessage)).toEqual([
      'spec.size: Invalid value: 21: size must be at most 10',
      'spec.items[0]: Invalid value: "long": failed rule: self.size() < 3',
    ]);
  });

  test('syntax errors are reported for the CRD', () => {
    expect(celRuleErrors({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.x >' }] }, 'schema').map(fieldErrorMessage)).toEqual([
      expect.stringMatching(/^schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: \{"Rule":"self\.x \\u003e",.*\}: compilation failed: /),
    ]);
    expect(celRuleErrors(schema, 'schema')).toEqual([]);
  });

  test("a rule's own fields are checked first, as ValidateCustomResourceDefinitionOpenAPISchema does; a level with such errors is not compiled", () => {
    const rules = [
      { rule: 'self.x >' },
      { rule: '' },
      { rule: 'self.x > 0', message: '  ' },
      { rule: 'self.x > 0', message: 'two\nlines' },
      { rule: 'self.x >\n 0' },
      { rule: 'self.x > 0', messageExpression: ' ', reason: 'FieldValueBogus', fieldPath: ' ' },
      { rule: 'self.x > 0', fieldPath: '.x\n' },
    ];
    expect(celRuleErrors({ type: 'object', 'x-kubernetes-validations': rules }, 'schema').map(fieldErrorMessage)).toEqual([
      'schema.x-kubernetes-validations[1].rule: Required value: rule is not specified',
      'schema.x-kubernetes-validations[2].message: Invalid value: "  ": must be non-empty if specified',
      'schema.x-kubernetes-validations[3].message: Invalid value: "two\\nlines": must not contain line breaks',
      'schema.x-kubernetes-validations[4].message: Required value: message must be specified if rule contains line breaks',
      'schema.x-kubernetes-validations[5].messageExpression: Required value: messageExpression must be non-empty if specified',
      'schema.x-kubernetes-validations[5].reason: Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
      'schema.x-kubernetes-validations[5].fieldPath: Invalid value: " ": must be non-empty if specified',
      'schema.x-kubernetes-validations[5].fieldPath: Invalid value: " ": must be a valid path',
      'schema.x-kubernetes-validations[6].fieldPath: Invalid value: ".x\\n": must not contain line breaks',
      'schema.x-kubernetes-validations[6].fieldPath: Invalid value: ".x\\n": must be a valid path',
    ]);
  });

  test('a fieldPath must name a field of the node; oldSelf only where old values correlate, optionalOldSelf only with oldSelf', () => {
    const transition = (rule: string, more: object = {}) => ({ type: 'string' as const, 'x-kubernetes-validations': [{ rule, ...more }] });
    const errors = celRuleErrors(
      {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            'x-kubernetes-validations': [
              { rule: 'self.size > 0', fieldPath: '.size' },
              { rule: 'self.size > 0', fieldPath: '.sise' },
              { rule: 'self.size > 0', optionalOldSelf: false },
              { rule: 'oldSelf.hasValue()', optionalOldSelf: true },
              { rule: 'self.size >', optionalOldSelf: true },
            ],
            properties: {
              size: { type: 'integer' },
              tags: { type: 'array', items: transition('self == oldSelf') },
              matrix: {
                type: 'array',
                items: {
                  type: 'array',
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['k'],
                  items: { ...transition('self == oldSelf'), type: 'object', required: ['k'], properties: { k: { type: 'string' } } },
                },
              },
              ports: {
                type: 'array',
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['name'],
                items: { type: 'object', required: ['name'], properties: { name: transition('self == oldSelf') } },
              },
            },
          },
        },
      },
      'schema',
    ).map(fieldErrorMessage);
    const spec = 'schema.properties[spec]';
    expect(errors).toEqual([
      `${spec}.x-kubernetes-validations[1].fieldPath: Invalid value: ".sise": must be a valid path`,
      `${spec}.properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${spec}.properties[tags]`,
      `${spec}.properties[matrix].items.items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${spec}.properties[matrix]`,
    ]);
    // once the fieldPath is right, the level compiles: a rule without oldSelf may not set optionalOldSelf, even one that does not compile
    const fixed = celRuleErrors(
      {
        type: 'object',
        'x-kubernetes-validations': [
          { rule: 'self.size > 0', fieldPath: '.size' },
          { rule: 'self.size > 0', optionalOldSelf: false },
          { rule: 'oldSelf.hasValue()', optionalOldSelf: true },
          { rule: 'self.size >', optionalOldSelf: true },
          { rule: "self.size > 0 && 'oldSelf' != ''", optionalOldSelf: true },
        ],
        properties: { size: { type: 'integer' } },
      },
      'schema',
    ).map(fieldErrorMessage);
    expect(fixed).toEqual([
      'schema.x-kubernetes-validations[1].optionalOldSelf: Invalid value: false: may not be set if oldSelf is not used in rule',
      expect.stringMatching(
        /^schema\.x-kubernetes-validations\[3\]\.rule: Invalid value: \{"Rule":"self\.size \\u003e",.*"OptionalOldSelf":true\}: compilation failed: /,
      ),
      'schema.x-kubernetes-validations[3].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule',
      'schema.x-kubernetes-validations[4].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule',
    ]);
  });

  test('schema errors below a node keep its rules from compiling; all schema errors come before all compile errors', () => {
    const errors = celRuleErrors(
      {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.nope' }],
        properties: {
          a: {
            type: 'object',
            'x-kubernetes-validations': [{ rule: 'self.nope' }],
            properties: { b: { type: 'string', 'x-kubernetes-validations': [{ rule: '' }] } },
          },
          c: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.nope > 0' }], properties: { x: { type: 'integer' } } },
        },
      },
      's',
    ).map(fieldErrorMessage);
    expect(errors).toEqual([
      's.properties[a].properties[b].x-kubernetes-validations[0].rule: Required value: rule is not specified',
      expect.stringMatching(/^s\.properties\[c\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*: compilation failed: /),
    ]);
  });

  test("patterns RE2 rejects: a matches literal at compile time, other constant patterns as cel-go's program creation", () => {
    const rules = [
      { rule: "self.matches('(?=a)')" },
      { rule: "self.find('(a)\\1') == ''" },
      { rule: "matches(self, '[z-a]')" },
      { rule: "self.findAll('^a+$').size() > 0" },
    ];
    expect(celRuleErrors({ type: 'string', 'x-kubernetes-validations': rules }, 's').map(fieldErrorMessage)).toEqual([
      `s.x-kubernetes-validations[0].rule: Invalid value: ${value("self.matches('(?=a)')")}: compilation failed: ERROR: <input>:1:14: invalid matches argument\n | self.matches('(?=a)')\n | .............^`,
      `s.x-kubernetes-validations[1].rule: Invalid value: ${value("self.find('(a)\\1') == ''")}: program instantiation failed: error parsing regexp: invalid escape sequence: \`\\1\``,
      `s.x-kubernetes-validations[2].rule: Invalid value: ${value("matches(self, '[z-a]')")}: program instantiation failed: error parsing regexp: invalid character class range: \`z-a\``,
    ]);
  });
});

describe("rules checked against the schema when the CRD is written, as kube's compiler checks them", () => {
  const check = (s: JSONSchemaProps) => celRuleErrors(s, 'schema').map(fieldErrorMessage);
  const rule = (r: string) => [{ rule: r }];

  test('undefined fields, undeclared names and functions, operators between mismatched types', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': rule('self.metadata.name.startsWith(self.spec.prefix) && self.apiVersion != ""'),
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [
            { rule: "self.type != 'secret' && self.type != 'configmap' || has(self.namespace)", message: 'namespace is required' },
            { rule: 'self.replicas > "3"' },
            { rule: 'self.items.all(i, i.nmae != "")' },
            { rule: 'size(nothing) > 0' },
            { rule: 'self.type.noSuchFunction()' },
            { rule: 'self.labels.all(k, self.labels[k] != "") && self.free.anything == 1 && self.replicas < 2.5' },
          ],
          properties: {
            prefix: { type: 'string' },
            type: { type: 'string' },
            replicas: { type: 'integer' },
            items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    };
    const at = (i: number, r: string, message: string, optional = '') =>
      `schema.properties[spec].x-kubernetes-validations[${i}].rule: Invalid value: ${value(r, optional)}: compilation failed: ${message}`;
    expect(check(schema)).toEqual([
      at(
        0,
        "self.type != 'secret' && self.type != 'configmap' || has(self.namespace)",
        "ERROR: <input>:1:57: undefined field 'namespace'\n | self.type != 'secret' && self.type != 'configmap' || has(self.namespace)\n | ........................................................^",
        'namespace is required',
      ),
      at(
        1,
        'self.replicas > "3"',
        "ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(int, string)'\n | self.replicas > \"3\"\n | ..............^",
      ),
      at(2, 'self.items.all(i, i.nmae != "")', 'ERROR: <input>:1:20: undefined field \'nmae\'\n | self.items.all(i, i.nmae != "")\n | ...................^'),
      at(3, 'size(nothing) > 0', "ERROR: <input>:1:6: undeclared reference to 'nothing' (in container '')\n | size(nothing) > 0\n | .....^"),
      at(
        4,
        'self.type.noSuchFunction()',
        "ERROR: <input>:1:25: undeclared reference to 'noSuchFunction' (in container '')\n | self.type.noSuchFunction()\n | ........................^",
      ),
      // only fields the schema declares are selectable, whatever x-kubernetes-preserve-unknown-fields says (SchemaDeclType)
      at(
        5,
        'self.labels.all(k, self.labels[k] != "") && self.free.anything == 1 && self.replicas < 2.5',
        'ERROR: <input>:1:54: undefined field \'anything\'\n | self.labels.all(k, self.labels[k] != "") && self.free.anything == 1 && self.replicas < 2.5\n | .....................................................^',
      ),
    ]);
  });
});

test("result types: a rule that does not evaluate to a bool is refused, and calls', indexing's and loops' results are typed for operators (kube's compileRule and checker)", () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [
      // accepted: bool results, and results the checker does not know
      { rule: "self.all(k, k != '') && self.tags.exists_one(t, t == 'a') && size(self.name) > 0 && (self.name.startsWith('a') ? true : has(self.count))" },
      { rule: 'self.?count.orValue(0) > 1 || self.tags.map(t, t.size()).all(n, n > 0)' },
      // refused
      { rule: 'self.name' },
      { rule: 'self.count + 1' },
      { rule: 'self.tags.map(t, t)' },
      { rule: 'self.port' },
      { rule: "self.name.size() == 'a'" },
      { rule: 'self.tags[0] == 1' },
      { rule: "self.tags.filter(t, t != '').size() + 'x' == 1" },
    ],
    properties: {
      name: { type: 'string' },
      count: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
      port: { 'x-kubernetes-int-or-string': true },
    },
  };
  expect(celRuleErrors(schema, 's').map((e) => `${e.field}: ${e.detail?.replace(/\n[^]*/, '').replace(/:1:\d+: found/, ':1:_: found')}`)).toEqual([
    's.x-kubernetes-validations[2].rule: cel expression must evaluate to a bool',
    's.x-kubernetes-validations[3].rule: cel expression must evaluate to a bool',
    's.x-kubernetes-validations[4].rule: cel expression must evaluate to a bool',
    // int-or-string is dyn, which is not bool either
    's.x-kubernetes-validations[5].rule: cel expression must evaluate to a bool',
    "s.x-kubernetes-validations[6].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for '_==_' applied to '(int, string)'",
    "s.x-kubernetes-validations[7].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for '_==_' applied to '(string, int)'",
    "s.x-kubernetes-validations[8].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for '_+_' applied to '(int, string)'",
  ]);
});

test('optional syntax and two-variable comprehensions are checked against the schema: fields, loop variables typed (index and element, key and value)', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [
      { rule: 'self.?limits.?max.orValue(1) > 0 && self.steps.all(i, v, i < 10 && v > 0) && self.labels.exists(k, v, k == v)' },
      { rule: 'self.?limts.hasValue()' },
      { rule: 'self.steps.all(i, v, i == "0")' },
      { rule: 'self.labels.all(k, v, v == 1)' },
    ],
    properties: {
      limits: { type: 'object', properties: { max: { type: 'integer' } } },
      steps: { type: 'array', items: { type: 'integer' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };
  // the operators' columns are @bufbuild/cel's (before the operator), not checked here
  expect(celRuleErrors(schema, 's').map((e) => e.detail?.replace(/\n[^]*/, '').replace(/:1:\d+: found/, ':1:_: found'))).toEqual([
    "compilation failed: ERROR: <input>:1:5: undefined field 'limts'",
    "compilation failed: ERROR: <input>:1:_: found no matching overload for '_==_' applied to '(int, string)'",
    "compilation failed: ERROR: <input>:1:_: found no matching overload for '_==_' applied to '(string, int)'",
  ]);
  const accepted = new CelRules({ ...schema, 'x-kubernetes-validations': [schema['x-kubernetes-validations']![0]] });
  expect(accepted.validate({ limits: { max: 2 }, steps: [1, 2], labels: { a: 'a' } })).toEqual([]);
  expect(accepted.validate({ steps: [1, 0], labels: { a: 'a' } }).map(fieldErrorMessage)).toEqual([
    '<nil>: Invalid value: failed rule: self.?limits.?max.orValue(1) > 0 && self.steps.all(i, v, i < 10 && v > 0) && self.labels.exists(k, v, k == v)',
  ]);
});

test("conversions, timestamp and duration arithmetic, the format library, optionals and optMap are typed; objects' types carry kube's path names", () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [
      // accepted
      {
        rule:
          "int(self.count) == self.count && string(self.count).size() > 0 && double(self.count) >= 0.0 && type(self.count) == int && dyn(self.count) == 'x' == false" +
          " && self.ttl < duration('1h') && self.at + duration('1h') > self.at && self.at - timestamp('2020-01-01T00:00:00Z') > duration('0s') && self.at.getFullYear() >= 2020" +
          " && !format.dns1123Label().validate(self.name).hasValue() && format.named('dns1123Label').value().validate(self.name).orValue([]).size() == 0" +
          " && self.name in [self.name] && 'max' in {'max': 1} && self.count in [1, 2, 3]" +
          ' && self.?limits.optMap(l, l.max).orValue(0) >= 0 && (self.?limits.optFlatMap(l, l.?max).hasValue() || true) && self.items.all(i, i.name != "")',
      },
      // refused
      { rule: 'int(self.name)' },
      { rule: 'int(self.items) > 0' },
      { rule: 'self.limits.size() > 0' },
      { rule: 'self.at + self.at > self.at' },
      { rule: 'format.dns1123Label().validate(1).hasValue()' },
      { rule: 'self.?limits' },
      { rule: 'self.?limits.optMap(l, l.mx).hasValue()' },
      { rule: 'optional.of(1).optMap(x.y, 1).hasValue()' },
      { rule: 'self.count.getFullYear() > 0' },
      { rule: 'self.items[0] == self.limits' },
      { rule: "self.items.first().value().nmae == ''" },
      { rule: 'self.count in self.items' },
    ],
    properties: {
      name: { type: 'string' },
      count: { type: 'integer' },
      ttl: { type: 'string', format: 'duration' },
      at: { type: 'string', format: 'date-time' },
      limits: { type: 'object', properties: { max: { type: 'integer' } } },
      items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
    },
  };
  const errors = celRuleErrors(schema, 's').map((e) => `${e.field}: ${e.detail?.replace(/\n[^]*/, '').replace(/:1:\d+: /, ':1:_: ')}`);
  // kube names self's type selfType and the clock's nanoseconds (generateUniqueSelfTypeName), so the number differs per write
  const type = errors.join('\n').match(/selfType\d+/)?.[0] ?? 'selfType?';
  expect(errors).toEqual([
    's.x-kubernetes-validations[1].rule: cel expression must evaluate to a bool',
    `s.x-kubernetes-validations[2].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for 'int' applied to '(list(${type}.items.@idx))'`,
    `s.x-kubernetes-validations[3].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for 'size' applied to '${type}.limits.()'`,
    "s.x-kubernetes-validations[4].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for '_+_' applied to '(google.protobuf.Timestamp, google.protobuf.Timestamp)'",
    "s.x-kubernetes-validations[5].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(int)'",
    's.x-kubernetes-validations[6].rule: cel expression must evaluate to a bool',
    "s.x-kubernetes-validations[7].rule: compilation failed: ERROR: <input>:1:_: undefined field 'mx'",
    's.x-kubernetes-validations[8].rule: compilation failed: ERROR: <input>:1:_: optMap() variable name must be a simple identifier',
    "s.x-kubernetes-validations[9].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for 'getFullYear' applied to 'int.()'",
    `s.x-kubernetes-validations[10].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for '_==_' applied to '(${type}.items.@idx, ${type}.limits)'`,
    "s.x-kubernetes-validations[11].rule: compilation failed: ERROR: <input>:1:_: undefined field 'nmae'",
    `s.x-kubernetes-validations[12].rule: compilation failed: ERROR: <input>:1:_: found no matching overload for '@in' applied to '(int, list(${type}.items.@idx))'`,
  ]);
  const accepted = new CelRules({ ...schema, 'x-kubernetes-validations': [schema['x-kubernetes-validations']![0]] });
  const ok = { name: 'web', count: 3, ttl: '10m', at: '2024-05-01T00:00:00Z', limits: { max: 2 }, items: [{ name: 'a' }] };
  expect(accepted.validate(ok)).toEqual([]);
  expect(accepted.validate({ ...ok, name: 'Not_A_Label' })).toHaveLength(1);
  expect(accepted.validate({ ...ok, limits: { max: -1 } })).toHaveLength(1);
});

test('an embedded resource declares TypeMeta and metadata.name and generateName besides its properties, preserve-unknown-fields or not', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [
      { rule: "self.embedded.kind == 'Pod' && self.embedded.apiVersion == 'v1' && self.embedded.metadata.name == 'foo' && has(self.embedded)" },
      { rule: 'has(self.embedded.spec)' },
      { rule: 'has(self.embedded.metadata.namespace)' },
    ],
    properties: { embedded: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true } },
  };
  expect(celRuleErrors(schema, 's').map((e) => e.detail?.replace(/\n[^]*/, ''))).toEqual([
    "compilation failed: ERROR: <input>:1:4: undefined field 'spec'",
    "compilation failed: ERROR: <input>:1:4: undefined field 'namespace'",
  ]);
});

test("a property named by a CEL reserved word or with '-' reads escaped, as kube escapes it, when checked and when run", () => {
  const escaped: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: '!has(self.__namespace__) || self.__namespace__ != self.x__dash__y', message: 'namespace must differ from x-y' }],
    properties: { namespace: { type: 'string' }, 'x-y': { type: 'string' } },
  };
  expect(celRuleErrors(escaped, 's')).toEqual([]);
  expect(new CelRules(escaped).validate({ namespace: 'a', 'x-y': 'a' }).map(fieldErrorMessage)).toEqual([
    '<nil>: Invalid value: namespace must differ from x-y',
  ]);
  expect(new CelRules(escaped).validate({ namespace: 'a', 'x-y': 'b' })).toEqual([]);
});

test('the rules of real CRDs kube accepts (Gateway API, Argo CD, Gatekeeper, prometheus-operator, ingress-nginx bundles) pass the checker', () => {
  const errors: string[] = [];
  let schemas = 0;
  for (const bundle of ['gateway-api', 'argo-cd', 'gatekeeper', 'prometheus-operator', 'ingress-nginx']) {
    for (const doc of loadAll(readFileSync(join(__dirname, `../../test/fixtures/bundles/${bundle}.yaml`), 'utf8')) as Record<string, any>[]) {
      if (doc?.kind !== 'CustomResourceDefinition') continue;
      for (const version of doc.spec.versions) {
        schemas++;
        errors.push(...celRuleErrors(version.schema.openAPIV3Schema, `${doc.metadata.name}/${version.name}`).map(fieldErrorMessage));
      }
    }
  }
  expect(schemas).toBeGreaterThan(40);
  expect(errors).toEqual([]);
});

describe('runtime cost', () => {
  const costly = (rule: string, extra: JSONSchemaProps['x-kubernetes-validations'] = []): CelRules =>
    new CelRules({
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { l: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule }, ...extra] } } },
      },
    });

  test('a rule past the per-call limit stops, with kube-apiserver errors, and no further rule runs', () => {
    const started = Date.now();
    const list = Array.from({ length: 300 }, (_, i) => i);
    const errs = costly('self.all(x, self.all(y, self.all(z, x + y + z >= 0)))', [{ rule: 'false' }]).validate({ spec: { l: list } });
    expect(errs.map(fieldErrorMessage)).toEqual([
      `spec.l: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, self.all(z, x + y + z >= 0)))`,
    ]);
    // Stopped at the limit it takes about 0.3 s; 300^3 (27 million) iterations run to the end would take far longer.
    // The bound leaves room for a machine busy with other test workers (3.1 s was seen under load).
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  test('a loop within the limit runs', () => {
    expect(costly('self.all(x, self.all(y, x + y >= 0))').validate({ spec: { l: Array.from({ length: 100 }, (_, i) => i) } })).toEqual([]);
  });

  test('regex calls cost by the size of the string and the pattern', () => {
    const errs = new CelRules({
      type: 'object',
      properties: { s: { type: 'string', 'x-kubernetes-validations': [{ rule: `self.matches('${'a'.repeat(100)}')` }] } },
    }).validate({ s: 'b'.repeat(500_000) });
    expect(errs.map(fieldErrorMessage)[0]).toMatch(/^s: Invalid value: "string": 'operation cancelled: actual cost limit exceeded'/);
  });

  test('rules together past the budget of one object stop with kube-apiserver message', () => {
    const items = Array.from({ length: 600 }, () => Array.from({ length: 120 }, (_, i) => i));
    const errs = new CelRules({
      type: 'object',
      properties: {
        l: {
          type: 'array',
          items: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x + y >= 0))' }] },
        },
      },
    }).validate({ l: items });
    expect(errs.map(fieldErrorMessage)).toEqual([
      expect.stringMatching(/^l\[\d+\]: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run$/),
    ]);
  });
});

describe("messageExpression results, as kube's compileRule and evalMessageExpression take them", () => {
  const ruleValue = (rule: string, messageExpression: string) =>
    `{"Rule":${goString(rule)},"Message":"","MessageExpression":${goString(messageExpression)},"Reason":null,"FieldPath":"","OptionalOldSelf":null}`;

  test('a messageExpression known not to give a string, or that does not compile, is refused at CRD write; a broken rule hides it', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: { n: { type: 'integer' }, name: { type: 'string' } },
      'x-kubernetes-validations': [
        { rule: 'self.n > 0', messageExpression: 'self.n' },
        { rule: 'self.n > 0', messageExpression: 'self.n > 1' },
        { rule: 'self.n > 0', messageExpression: "'n is ' + self.nn" },
        { rule: 'self.n > 0', messageExpression: "'n is ' + string(self.n)" },
        { rule: 'self.n >', messageExpression: 'self.n' },
      ],
    };
    const errs = celRuleErrors(s, 's').map(fieldErrorMessage);
    expect(errs.slice(0, 3)).toEqual([
      `s.x-kubernetes-validations[0].messageExpression: Invalid value: ${ruleValue('self.n > 0', 'self.n')}: messageExpression must evaluate to a string`,
      `s.x-kubernetes-validations[1].messageExpression: Invalid value: ${ruleValue('self.n > 0', 'self.n > 1')}: messageExpression must evaluate to a string`,
      `s.x-kubernetes-validations[2].messageExpression: Invalid value: ${ruleValue('self.n > 0', "'n is ' + self.nn")}: messageExpression compilation failed: ERROR: <input>:1:15: undefined field 'nn'\n | 'n is ' + self.nn\n | ..............^`,
    ]);
    expect(errs[3]).toMatch(/^s\.x-kubernetes-validations\[4\]\.rule: Invalid value: .*: compilation failed: /);
    expect(errs).toHaveLength(4);
  });

  test('a result that is empty, longer than 5 KiB or has line breaks gives way to the message, else to failed rule: <rule>', () => {
    const failing = (messageExpression: string, message?: string) =>
      new CelRules({ type: 'object', properties: { s: { type: 'string', 'x-kubernetes-validations': [{ rule: 'false', messageExpression, message }] } } })
        .validate({ s: 'x'.repeat(5119) })
        .map(fieldErrorMessage);
    const long = `"${'x'.repeat(5119)}"`;
    expect(failing("'  padded  '")).toEqual([`s: Invalid value: ${long}: padded`]);
    expect(failing("self + 'é'")).toEqual([`s: Invalid value: ${long}: failed rule: false`]);
    expect(failing("self + 'a'")).toEqual([`s: Invalid value: ${long}: ${'x'.repeat(5119)}a`]);
    expect(failing("'two\\nlines'", ' the message ')).toEqual([`s: Invalid value: ${long}: the message`]);
    expect(failing("'   '")).toEqual([`s: Invalid value: ${long}: failed rule: false`]);
    expect(failing('string(1/0)')).toEqual([`s: Invalid value: ${long}: failed rule: false`]);
  });
});

test("string methods' argument types are checked as cel-go's checker checks them (no matching overload), dyn ones let through", () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: { name: { type: 'string' }, n: { type: 'integer' }, any: { 'x-kubernetes-int-or-string': true } },
    'x-kubernetes-validations': [
      { rule: 'self.name.startsWith(1)' },
      { rule: "self.name.indexOf('a', 'b') > 0" },
      { rule: 'self.name.substring(self.n, self.name) != ""' },
      { rule: "self.name.replace('a', 'b', 1u) != ''" },
      { rule: "self.name.trim('x') != ''" },
      { rule: "self.name.substring(self.n) != '' && self.name.indexOf('a', 1) > 0 && self.name.split(',', 2).size() > 0" },
      { rule: 'self.name.contains(self.any) && self.name.charAt(self.any) != ""' },
    ],
  };
  const details = celRuleErrors(s, 's').map((e) => `${e.field}: ${e.detail}`);
  expect(details).toEqual([
    "s.x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:21: found no matching overload for 'startsWith' applied to 'string.(int)'\n | self.name.startsWith(1)\n | ....................^",
    "s.x-kubernetes-validations[1].rule: compilation failed: ERROR: <input>:1:18: found no matching overload for 'indexOf' applied to 'string.(string, string)'\n | self.name.indexOf('a', 'b') > 0\n | .................^",
    "s.x-kubernetes-validations[2].rule: compilation failed: ERROR: <input>:1:20: found no matching overload for 'substring' applied to 'string.(int, string)'\n | self.name.substring(self.n, self.name) != \"\"\n | ...................^",
    "s.x-kubernetes-validations[3].rule: compilation failed: ERROR: <input>:1:18: found no matching overload for 'replace' applied to 'string.(string, string, uint)'\n | self.name.replace('a', 'b', 1u) != ''\n | .................^",
    "s.x-kubernetes-validations[4].rule: compilation failed: ERROR: <input>:1:15: found no matching overload for 'trim' applied to 'string.(string)'\n | self.name.trim('x') != ''\n | ..............^",
  ]);
});

test("library calls' argument and result types come from one table of kube's overloads (lists, ext.Lists, quantity, semver, ip, cidr, url, sets)", () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string' } },
      nums: { type: 'array', items: { type: 'integer' } },
      nested: { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
      mixed: { type: 'array', items: { 'x-kubernetes-int-or-string': true } },
      items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      q: { type: 'string' },
      n: { type: 'integer' },
    },
    'x-kubernetes-validations': [
      // accepted
      {
        rule: "self.tags.distinct().size() == self.tags.size() && self.tags.sort().reverse()[0] != '' && lists.range(3).slice(0, 2) == [0, 1] && self.nested.flatten().sum() >= 0",
        messageExpression: "self.tags.sort().join(', ') + self.tags.max()",
      },
      { rule: "self.items.sortBy(i, i.name).map(i, i.name) == self.items.map(i, i.name).sort() && self.items.sortBy(i, i.name)[0].name != ''" },
      { rule: "quantity(self.q).add(1).isGreaterThan(quantity('1')) && semver('1.0.0').major() == 1 && cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))" },
      { rule: "url('https://a/b').getQuery().size() == 0 && sets.contains(self.nums, [1]) && self.mixed.indexOf(1) >= 0 && isIP(self.q)" },
      // refused for the result's type
      { rule: 'self.tags.sort()' },
      { rule: 'self.nums.sum()' },
      { rule: 'true', messageExpression: 'self.mixed.max()' },
      { rule: 'true', messageExpression: 'self.nums.distinct()' },
      // refused for an argument's type
      { rule: 'self.tags.indexOf(1) >= 0' },
      { rule: 'quantity(self.n).isInteger()' },
      { rule: 'self.nested.sort().size() > 0' },
      { rule: "quantity('1').sign() == 1" },
      { rule: 'lists.range(self.q).size() > 0' },
      { rule: 'self.items.sortBy(i, i.nmae).size() > 0' },
      { rule: 'self.nums.sum() == 1.5' },
      { rule: 'self.tags.first()' },
      { rule: "self.tags.first().orValue('') != '' && optional.unwrap([self.tags.last()]).size() == 1" },
    ],
  };
  const details = celRuleErrors(s, 's').map((e) => `${e.field}: ${e.detail?.replace(/\n[^]*/, '')}`);
  expect(details).toEqual([
    's.x-kubernetes-validations[4].rule: cel expression must evaluate to a bool',
    's.x-kubernetes-validations[5].rule: cel expression must evaluate to a bool',
    // a list of int-or-strings is list(dyn): each comparable type's max() matches, and cel-go joins their results to dyn
    's.x-kubernetes-validations[6].messageExpression: messageExpression must evaluate to a string',
    's.x-kubernetes-validations[7].messageExpression: messageExpression must evaluate to a string',
    "s.x-kubernetes-validations[8].rule: compilation failed: ERROR: <input>:1:18: found no matching overload for 'indexOf' applied to 'list(string).(int)'",
    "s.x-kubernetes-validations[9].rule: compilation failed: ERROR: <input>:1:9: found no matching overload for 'quantity' applied to '(int)'",
    "s.x-kubernetes-validations[10].rule: compilation failed: ERROR: <input>:1:17: found no matching overload for 'sort' applied to 'list(list(int)).()'",
    // kube declares sign as a function, sign(q), which cel-go's checker does not take as a method
    "s.x-kubernetes-validations[11].rule: compilation failed: ERROR: <input>:1:19: found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'",
    "s.x-kubernetes-validations[12].rule: compilation failed: ERROR: <input>:1:12: found no matching overload for 'lists.range' applied to '(string)'",
    "s.x-kubernetes-validations[13].rule: compilation failed: ERROR: <input>:1:23: undefined field 'nmae'",
    "s.x-kubernetes-validations[14].rule: compilation failed: ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(int, double)'",
    's.x-kubernetes-validations[15].rule: cel expression must evaluate to a bool',
  ]);
});

test("map and filter results are lists of what their step adds, as cel-go's checker infers an accumulator's type", () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: { items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } } } },
    'x-kubernetes-validations': [
      { rule: "self.items.map(i, i.name).sort().join(',') != ''", messageExpression: "self.items.filter(i, i.n > 0).map(i, i.name).join(', ')" },
      { rule: 'self.items.map(i, i.n).sum() > 0', messageExpression: 'self.items.map(i, i.name).sort()' },
      { rule: 'self.items.map(i, i.n)[0] == "a"' },
    ],
  };
  expect(celRuleErrors(s, 's').map((e) => `${e.field}: ${e.detail?.replace(/\n[^]*/, '')}`)).toEqual([
    's.x-kubernetes-validations[1].messageExpression: messageExpression must evaluate to a string',
    "s.x-kubernetes-validations[2].rule: compilation failed: ERROR: <input>:1:26: found no matching overload for '_==_' applied to '(int, string)'",
  ]);
});
