import { celErrorText, CelCompileError, compileExpression, fromCel, isCelError, toCel } from './cel';
import { resourceAttributes, type AuthorizationAttributes } from '../../auth/authorizer/attributes';
import { authorizerValue } from './authorizer-values';

const run = (
  source: string,
  vars: Record<string, unknown>,
  authorize: ((a: AuthorizationAttributes) => { decision: 'Allow' | 'Deny' | 'NoOpinion'; reason: string }) | null = null,
) => compileExpression(source, Object.keys(vars)).run(Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, toCel(v)])), authorize);

describe('compileExpression', () => {
  test('a syntax error is reported in cel-go form, with the line and a caret', () => {
    expect(() => compileExpression('a +', ['a'])).toThrow(CelCompileError);
    expect(() => compileExpression('a +', ['a'])).toThrow(/^ERROR: <input>:1:3: Syntax error: .*\n \| a \+\n \| \.\.\^$/);
  });

  test('an undeclared variable is an error; comprehension variables are declared inside their macro', () => {
    expect(() => compileExpression('object.x == other', ['object'])).toThrow("ERROR: <input>:1:13: undeclared reference to 'other' (in container '')");
    expect(() => compileExpression('object.items.all(i, i > 0)', ['object'])).not.toThrow();
  });

  test('celErrorText points at the offset on its own line', () => {
    expect(celErrorText('a\nbc.d', 4, 'boom')).toBe('ERROR: <input>:2:3: boom\n | bc.d\n | ..^');
  });
});

describe('evaluation', () => {
  test('JSON objects are maps, whole numbers ints', () => {
    expect(run('object.spec.replicas > 2 && object.spec.ratio < 1.0', { object: { spec: { replicas: 3, ratio: 0.5 } } })).toBe(true);
    expect(run("'app' in object.metadata.labels", { object: { metadata: { labels: { app: 'x' } } } })).toBe(true);
  });

  test('matches is a function as well as a method', () => {
    expect(run("matches(v, 'v1.[0-3].\\\\d+') && v.matches('^v1')", { v: 'v1.2.3' })).toBe(true);
  });

  test('fromCel turns maps and ints back into JSON', () => {
    expect(fromCel(toCel({ a: [1, { b: 2.5 }] }))).toEqual({ a: [1, { b: 2.5 }] });
  });

  test("the authorizer library asks the authorizer for the expression's user", () => {
    const asked: AuthorizationAttributes[] = [];
    const authorize = (a: AuthorizationAttributes) => {
      asked.push(a);
      return a.resource === 'secrets' ? { decision: 'Allow' as const, reason: 'yes' } : { decision: 'NoOpinion' as const, reason: 'no' };
    };
    const user = { name: 'alice', uid: '', groups: ['g'], extra: {} };
    const vars = { authorizer: authorizerValue(user) };
    const compiled = (src: string) => compileExpression(src, ['authorizer']).run(vars, authorize);
    expect(compiled("authorizer.group('').resource('secrets').namespace('ns').name('n').check('get').allowed()")).toBe(true);
    expect(asked[0]).toEqual(resourceAttributes(user, 'get', { apiGroup: '', apiVersion: '*', resource: 'secrets', namespace: 'ns', name: 'n' }));
    expect(compiled("authorizer.group('apps').resource('deployments').subresource('scale').check('update').reason()")).toBe('no');
    expect(compiled("authorizer.path('/healthz').check('get').allowed()")).toBe(false);
    expect(asked[2]).toMatchObject({ resourceRequest: false, path: '/healthz', verb: 'get' });
    expect(compiled("authorizer.serviceAccount('ns', 'sa').group('').resource('secrets').check('list').allowed()")).toBe(true);
    expect(asked[3].user).toEqual({
      name: 'system:serviceaccount:ns:sa',
      uid: '',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
      extra: {},
    });
  });
});

describe('cost limit', () => {
  test("an expression past kube's per-call limit is cel-go's cost error, stopped early", () => {
    const started = Date.now();
    const compiled = compileExpression('object.l.all(x, object.l.all(y, object.l.all(z, x + y + z >= 0)))', ['object']);
    const result = compiled.run({ object: toCel({ l: Array.from({ length: 300 }, (_, i) => i) }) }, null);
    expect(isCelError(result) && result.message).toBe('operation cancelled: actual cost limit exceeded');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(compiled.run({ object: toCel({ l: [1, 2, 3] }) }, null)).toBe(true);
  });
});
