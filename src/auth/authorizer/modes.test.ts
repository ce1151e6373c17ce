import { parseFlags } from '../../server/config';
import { resourceAttributes } from './attributes';
import { buildAuthorizer, parseAuthorizationModes } from './modes';
import type { RbacAuthorizer } from './rbac';

test('--authorization-mode: known modes, in order, each once', () => {
  expect((parseFlags([]) as { authorizationModes: string[] }).authorizationModes).toEqual(['RBAC']);
  expect(parseAuthorizationModes('AlwaysDeny,RBAC')).toEqual(['AlwaysDeny', 'RBAC']);
  expect(() => parseAuthorizationModes('Webhook')).toThrow('authorization-mode "Webhook" is not a valid mode');
  expect(() => parseAuthorizationModes('RBAC,RBAC')).toThrow('authorization-mode "RBAC,RBAC" has mode specified more than once');
  expect(() => parseFlags(['--authorization-mode=ABAC'])).toThrow('authorization-mode "ABAC" is not a valid mode');
});

/** An RBAC stand-in that allows only "get", for the union's order. */
const rbac = {
  authorize: (a: { verb: string }) => (a.verb === 'get' ? { decision: 'Allow', reason: 'RBAC: allowed by test' } : { decision: 'NoOpinion', reason: '' }),
  rulesFor: () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }], nonResourceRules: [], incomplete: false }),
} as unknown as RbacAuthorizer;

const alice = { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };

test('the union: the first opinion decides, NoOpinion reasons are joined, system:masters comes first', () => {
  const union = buildAuthorizer(['AlwaysDeny', 'RBAC'], rbac, null);
  expect(union.authorize(resourceAttributes(alice, 'get', { resource: 'pods' }))).toEqual({ decision: 'Allow', reason: 'RBAC: allowed by test' });
  expect(union.authorize(resourceAttributes(alice, 'list', { resource: 'pods' }))).toEqual({ decision: 'NoOpinion', reason: 'Everything is forbidden.' });
  const master = { ...alice, groups: ['system:masters'] };
  expect(buildAuthorizer(['AlwaysDeny'], rbac, null).authorize(resourceAttributes(master, 'delete', { resource: 'nodes' })).decision).toBe('Allow');
  expect(union.rulesFor(alice, 'ns').resourceRules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }]);
});
