import { compilePolicy, evaluatePolicy } from './compiled-policy';
import { toCel } from './cel';

const policy = (spec: Record<string, unknown>) => ({ metadata: { name: 'p' }, spec });
const vars = (object: unknown) => ({ object: toCel(object), oldObject: null, request: toCel({}), params: null, namespaceObject: null, authorizer: new Map() });

describe('evaluatePolicy', () => {
  test('a false validation denies with its message, messageExpression or the expression', () => {
    const compiled = compilePolicy(
      policy({
        validations: [
          { expression: 'object.a == 1', message: 'a must be 1' },
          { expression: 'object.a == 2', messageExpression: "'a is ' + string(object.a)", reason: 'Forbidden' },
          { expression: ' object.a == 3 ' },
          { expression: 'object.a == 0' },
        ],
      }),
    );
    expect(evaluatePolicy(compiled, vars({ a: 0 }), null).decisions).toEqual([
      { action: 'deny', message: 'a must be 1', reason: 'Invalid', index: 0 },
      { action: 'deny', message: 'a is 0', reason: 'Forbidden', index: 1 },
      { action: 'deny', message: 'failed expression: object.a == 3', reason: 'Invalid', index: 2 },
    ]);
  });

  test('an error denies under Fail and admits under Ignore', () => {
    const spec = { validations: [{ expression: "object.b == 'x'" }] };
    const failed = evaluatePolicy(compilePolicy(policy(spec)), vars({ a: 0 }), null).decisions;
    expect(failed).toHaveLength(1);
    expect(failed[0].message).toMatch(/^expression 'object.b == 'x'' resulted in error: /);
    expect(evaluatePolicy(compilePolicy(policy({ ...spec, failurePolicy: 'Ignore' })), vars({ a: 0 }), null).decisions).toEqual([
      { action: 'admit', message: failed[0].message, reason: '', index: 0 },
    ]);
  });

  test('matchConditions: one false skips; an error with none false follows the failure policy', () => {
    const spec = (expressions: string[], failurePolicy = 'Fail') =>
      policy({ failurePolicy, matchConditions: expressions.map((expression, i) => ({ name: `c${i}`, expression })), validations: [{ expression: 'false' }] });
    expect(evaluatePolicy(compilePolicy(spec(['object.nope == 1', 'false'])), vars({}), null).decisions).toEqual([]);
    expect(evaluatePolicy(compilePolicy(spec(['object.nope == 1', 'true'])), vars({}), null).decisions[0].action).toBe('deny');
    expect(evaluatePolicy(compilePolicy(spec(['object.nope == 1'], 'Ignore')), vars({}), null).decisions).toEqual([]);
    expect(evaluatePolicy(compilePolicy(spec(['true'])), vars({}), null).decisions[0].message).toBe('failed expression: false');
  });

  test('variables are read through `variables`; audit annotations keep string values', () => {
    const compiled = compilePolicy(
      policy({
        variables: [{ name: 'double', expression: 'object.a * 2' }],
        validations: [{ expression: 'variables.double == 4' }],
        auditAnnotations: [
          { key: 'k', valueExpression: "'a=' + string(variables.double)" },
          { key: 'none', valueExpression: 'null' },
        ],
      }),
    );
    const result = evaluatePolicy(compiled, vars({ a: 2 }), null);
    expect(result.decisions).toEqual([]);
    expect([...result.auditAnnotations]).toEqual([['k', 'a=4']]);
  });

  test('a policy whose expressions do not compile is a configuration error', () => {
    expect(compilePolicy(policy({ validations: [{ expression: 'object.a ==' }] })).configurationError).toMatch(/^compilation failed: ERROR: <input>:1:/);
  });
});
