import { ruleMatches, selectorMatches, type RuleTarget } from './matching';

const target = (over: Partial<RuleTarget> = {}): RuleTarget => ({
  operation: 'CREATE',
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  subresource: '',
  clusterScoped: false,
  ...over,
});
const rule = (resources: string[], over: Record<string, unknown> = {}) => ({
  operations: ['CREATE'],
  apiGroups: ['apps'],
  apiVersions: ['v1'],
  resources,
  ...over,
});

describe('ruleMatches', () => {
  test.each([
    [['deployments'], '', true],
    [['deployments'], 'scale', false],
    [['deployments/scale'], 'scale', true],
    [['deployments/*'], 'scale', true],
    [['deployments/*'], '', false],
    [['*'], '', true],
    [['*'], 'status', false],
    [['*/status'], 'status', true],
    [['*/status'], 'scale', false],
    [['*/*'], 'scale', true],
    [['*/*'], '', true],
    [['replicasets'], '', false],
  ])('resources %j against subresource "%s": %s', (resources, subresource, expected) => {
    expect(ruleMatches(rule(resources), target({ subresource }))).toBe(expected);
  });

  test('operations, groups and versions match exactly or by *', () => {
    expect(ruleMatches(rule(['*'], { operations: ['UPDATE'] }), target())).toBe(false);
    expect(ruleMatches(rule(['*'], { operations: ['*'] }), target({ operation: 'DELETE' }))).toBe(true);
    expect(ruleMatches(rule(['*'], { apiGroups: [''] }), target())).toBe(false);
    expect(ruleMatches(rule(['*'], { apiGroups: ['*'], apiVersions: ['v1beta1'] }), target())).toBe(false);
  });

  test('scope: Cluster, Namespaced or *', () => {
    expect(ruleMatches(rule(['*'], { scope: 'Cluster' }), target())).toBe(false);
    expect(ruleMatches(rule(['*'], { scope: 'Cluster' }), target({ clusterScoped: true }))).toBe(true);
    expect(ruleMatches(rule(['*'], { scope: 'Namespaced' }), target({ clusterScoped: true }))).toBe(false);
    expect(ruleMatches(rule(['*'], { scope: '*' }), target({ clusterScoped: true }))).toBe(true);
  });
});

describe('selectorMatches', () => {
  test('an empty or absent selector selects everything, even what has no labels', () => {
    expect(selectorMatches(undefined, undefined)).toBe(true);
    expect(selectorMatches({}, undefined)).toBe(true);
  });

  test('matchLabels and matchExpressions', () => {
    expect(selectorMatches({ matchLabels: { a: 'b' } }, { a: 'b', c: 'd' })).toBe(true);
    expect(selectorMatches({ matchLabels: { a: 'b' } }, undefined)).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, { env: 'dev' })).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, { env: 'dev' })).toBe(false);
  });
});
