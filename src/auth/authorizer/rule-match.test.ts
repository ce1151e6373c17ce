import { INSECURE_SUPERUSER } from '../user';
import { nonResourceAttributes, resourceAttributes } from './attributes';
import { compactRules, compactString, covers, ruleAllows } from './rule-match';

const user = { ...INSECURE_SUPERUSER, name: 'u', groups: [] };

describe('ruleAllows', () => {
  const pods = resourceAttributes(user, 'get', { resource: 'pods', namespace: 'ns', name: 'p' });
  const podLog = { ...pods, subresource: 'log' };

  test.each([
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, pods, true],
    [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, podLog, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, podLog, false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, podLog, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/log'] }, podLog, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/log'] }, pods, false],
    [{ verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, pods, false],
    [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }, pods, false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }, pods, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['q'] }, pods, false],
    [{ verbs: ['get'], nonResourceURLs: ['*'] }, pods, false],
  ])('%j on %j: %s', (rule, attrs, allowed) => {
    expect(ruleAllows(attrs, rule)).toBe(allowed);
  });

  test.each([
    ['/metrics', true],
    ['/logs/a/b', true],
    ['/logs', false],
    ['/metricsx', false],
  ])('non-resource %s', (path, allowed) => {
    expect(ruleAllows(nonResourceAttributes(user, 'get', path), { verbs: ['get'], nonResourceURLs: ['/metrics', '/logs/*'] })).toBe(allowed);
  });
});

describe('covers, as ConfirmNoEscalation reports what is missing', () => {
  test('subresources, wildcards and names', () => {
    const owner = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] },
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
    ];
    expect(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'services/status'] }])).toEqual({ covered: true, missing: [] });
    expect(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }]).covered).toBe(true);
    expect(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]).covered).toBe(false);
    expect(covers(owner, [{ verbs: ['get'], nonResourceURLs: ['/logs/x'] }]).covered).toBe(true);
    const { missing } = covers(owner, [{ verbs: ['get', 'watch', 'delete'], apiGroups: ['', 'apps'], resources: ['pods'] }]);
    expect(compactRules(missing).map(compactString).sort()).toEqual([
      '{APIGroups:[""], Resources:["pods"], Verbs:["watch" "delete"]}',
      '{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "watch" "delete"]}',
    ]);
  });
});
