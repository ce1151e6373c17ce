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

  describe("cost budgets (kube's RuntimeCELCostBudget per evaluation, RuntimeCELCostBudgetMatchConditions)", () => {
    // a regex call costs cel-go's ceil((100,000 + 1) * 0.1) * ceil(256 * 0.25) = 640,064, plus 4 for object.data.k and the call
    const data = { k: 'a'.repeat(100_000) };
    const pattern = `^[a-z]*$|${'q'.repeat(247)}`;
    const costly = `object.data.k.matches('${pattern}')`;
    const many = (n: number, expression = costly) => Array.from({ length: n }, () => ({ expression }));
    const outOfBudget = 'validation failed due to running out of cost budget, no further validation rules will be run';

    test('the validations share 10,000,000: 15 costly ones pass, 16 are one error under the failure policy', () => {
      expect(evaluatePolicy(compilePolicy(policy({ validations: many(15) })), vars({ data }), null).decisions).toEqual([]);
      const over = { validations: [{ expression: 'false' }, ...many(16)] };
      expect(evaluatePolicy(compilePolicy(policy(over)), vars({ data }), null).decisions).toEqual([
        { action: 'deny', message: outOfBudget, reason: '', index: 0 },
      ]);
      expect(evaluatePolicy(compilePolicy(policy({ ...over, failurePolicy: 'Ignore' })), vars({ data }), null).decisions).toEqual([
        { action: 'admit', message: outOfBudget, reason: '', index: 0 },
      ]);
    });

    test('messageExpressions all run, with what the validations left; past it, every validation that did not err is that error', () => {
      const validations = [
        ...many(14),
        { expression: 'object.nope', messageExpression: `${costly} ? 'm' : 'n'` },
        { expression: 'true', messageExpression: `${costly} ? 'm' : 'n'` },
      ];
      const decisions = evaluatePolicy(compilePolicy(policy({ validations })), vars({ data }), null).decisions;
      expect(decisions.map((d) => d.message.replace(/ resulted in error: .*/, ''))).toEqual([
        ...Array.from({ length: 14 }, () => `failed messageExpression: ${outOfBudget}`),
        "expression 'object.nope'",
        `failed messageExpression: ${outOfBudget}`,
      ]);
    });

    test('a variable is evaluated and charged once, by the first expression reading it; one no expression reads costs nothing', () => {
      const variables = [
        { name: 'costly', expression: costly },
        { name: 'unread', expression: costly },
      ];
      const compiled = compilePolicy(policy({ variables, validations: [...many(14), ...many(16, 'variables.costly')] }));
      expect(evaluatePolicy(compiled, vars({ data }), null).decisions).toEqual([]);
      const twice = compilePolicy(policy({ variables, validations: [...many(15), { expression: 'variables.costly' }] }));
      expect(evaluatePolicy(twice, vars({ data }), null).decisions).toEqual([{ action: 'deny', message: outOfBudget, reason: '', index: 0 }]);
    });

    test('matchConditions share 2,500,000, and all run before any is read: a false one does not save an over-budget set', () => {
      const conditions = (n: number) => [{ name: 'no', expression: 'false' }, ...Array.from({ length: n }, (_, i) => ({ name: `c${i}`, expression: costly }))];
      const spec = (n: number, failurePolicy = 'Fail') => policy({ failurePolicy, matchConditions: conditions(n), validations: [{ expression: 'false' }] });
      expect(evaluatePolicy(compilePolicy(spec(3)), vars({ data }), null).decisions).toEqual([]);
      expect(evaluatePolicy(compilePolicy(spec(4)), vars({ data }), null).decisions).toEqual([{ action: 'deny', message: outOfBudget, reason: '', index: 0 }]);
      expect(evaluatePolicy(compilePolicy(spec(4, 'Ignore')), vars({ data }), null).decisions).toEqual([]);
    });
  });
});
