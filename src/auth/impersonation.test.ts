import type { AuthorizationAttributes, Authorizer } from './authorizer/attributes';
import { impersonate } from './impersonation';

const alice = { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };

/** May impersonate the user bob and the extra "scopes", nothing else. */
const authorizer: Authorizer = {
  authorize: (a: AuthorizationAttributes) =>
    (a.resource === 'users' && a.name === 'bob') || (a.resource === 'userextras' && a.subresource === 'scopes')
      ? { decision: 'Allow', reason: '' }
      : { decision: 'NoOpinion', reason: '' },
};

test('allowed: the new user, system:authenticated added', () => {
  expect(impersonate(alice, { 'impersonate-user': ['bob'], 'impersonate-extra-scopes': ['a', 'b'] }, authorizer)).toEqual({
    name: 'bob',
    uid: '',
    groups: ['system:authenticated'],
    extra: { scopes: ['a', 'b'] },
  });
});

test('nothing asked: null', () => {
  expect(impersonate(alice, { accept: ['*/*'] }, authorizer)).toBeNull();
});

test.each([
  [{ 'impersonate-user': ['carol'] }, 'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope'],
  [
    { 'impersonate-user': ['bob'], 'impersonate-group': ['admins'] },
    'groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
  ],
  [
    { 'impersonate-user': ['system:serviceaccount:ns:robot'] },
    'serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"',
  ],
  [
    { 'impersonate-user': ['bob'], 'impersonate-uid': ['1'] },
    'uids.authentication.k8s.io "1" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
  ],
  [
    { 'impersonate-user': ['bob'], 'impersonate-extra-team%2fname': ['x'] },
    'userextras.authentication.k8s.io "x" is forbidden: User "alice" cannot impersonate resource "userextras/team/name" in API group "authentication.k8s.io" at the cluster scope',
  ],
])('refused %j', (headers, message) => {
  expect(() => impersonate(alice, headers, authorizer)).toThrow(message);
});
