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
        // A function no library has: kube's compiler refuses such a CRD; kapi cannot judge the rule and does not enforce it.
        { rule: '!has(self.mode) || self.mode.noSuchFunction()' },
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
  (old ? rules.validateUpdate(obj, old) : rules.validate(obj)).map(fieldErrorMessage);

describe('CEL validation rules', () => {
  test('rules that hold give no errors; integers are ints, numbers doubles', () => {
    expect(messages({ spec: { minReplicas: 1, maxReplicas: 3, mode: 'xy', ports: [80, 443], ratio: 0.5 } })).toEqual([]);
  });

  test('a failed rule reports its message, message expression or the rule itself, with kube field errors', () => {
    expect(messages({ spec: { minReplicas: 0, maxReplicas: -1, mode: 'ab', ports: [70000], ratio: 1.5 } })).toEqual([
      'spec: Invalid value: "object": minReplicas must not exceed maxReplicas',
      'spec: Invalid value: "object": mode ab must start with x',
      'spec.minReplicas: Forbidden: failed rule: self.minReplicas > 0',
      'spec.ports[0]: Invalid value: "integer": failed rule: self < 65536',
      'spec.ratio: Invalid value: "number": failed rule: self < 1.0',
    ]);
  });

  test("rules may use Kubernetes' CEL libraries (lists, quantity, ...)", () => {
    expect(messages({ spec: { minReplicas: 1, maxReplicas: 3, ports: [443, 80] } })).toEqual(['spec: Invalid value: "object": ports must be sorted']);
    const quantities = new CelRules({
      type: 'object',
      properties: {
        limit: { type: 'string', 'x-kubernetes-validations': [{ rule: "quantity(self).isLessThan(quantity('1Gi'))", message: 'must be under 1Gi' }] },
      },
    });
    expect(quantities.validate({ limit: '512Mi' })).toEqual([]);
    expect(quantities.validate({ limit: '2Gi' }).map(fieldErrorMessage)).toEqual(['limit: Invalid value: "string": must be under 1Gi']);
  });

  test('a rule that reads a missing field fails with the evaluation error', () => {
    expect(messages({ spec: { maxReplicas: 1 } })).toEqual([
      expect.stringMatching(/^spec: Invalid value: "object": .*minReplicas/),
      expect.stringMatching(/^spec: Invalid value: "object": .*minReplicas/),
    ]);
  });

  test('transition rules run on updates only, against the old value', () => {
    const base = { minReplicas: 1, maxReplicas: 1 };
    expect(messages({ spec: { ...base, name: 'a' } })).toEqual([]);
    expect(messages({ spec: { ...base, name: 'b' } }, { spec: { ...base, name: 'a' } })).toEqual(['spec.name: Invalid value: "string": name is immutable']);
    expect(messages({ spec: { ...base, name: 'b' } }, { spec: base })).toEqual([]);
  });

  test('syntax errors are reported for the CRD', () => {
    expect(celRuleErrors({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.x >' }, { rule: '' }] }, 'schema').map(fieldErrorMessage)).toEqual([
      expect.stringMatching(/^schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.x >": compilation failed: /),
      'schema.x-kubernetes-validations[1].rule: Required value: rule is not specified',
    ]);
    expect(celRuleErrors(schema, 'schema')).toEqual([]);
  });
});
