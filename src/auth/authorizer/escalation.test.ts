import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import { SERVER_OWN_WRITE, systemContext, type RequestContext } from '../../registry/request-context';
import { resourceAttributes } from './attributes';
import { confirmBindingWrite, confirmRoleWrite } from './escalation';
import { PRIVILEGED_GROUP_ONLY } from './modes';

const role = (rules: unknown[]): KubeObject =>
  ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' }, rules }) as KubeObject;
const ALL = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
const binding: KubeObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'b' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'mallory' }],
} as unknown as KubeObject;

/** The server's own context with another user in it: what a context that lost its request's authorizer would look like. */
const asUser = (name: string, groups: string[]): RequestContext => ({
  ...systemContext({ namespace: '' }, SERVER_OWN_WRITE),
  user: { name, uid: '', groups, extra: {} },
});

const refusal = (check: () => void): unknown => {
  try {
    check();
  } catch (err) {
    return isStatusError(err) ? err.status : err;
  }
  return null;
};

describe('escalation checks read the requester from the context, and fail closed', () => {
  test("the server's own writes (system:masters) pass", () => {
    const ctx = systemContext({ namespace: '' }, SERVER_OWN_WRITE);
    expect(refusal(() => confirmRoleWrite(ctx, 'clusterroles', role(ALL), null))).toBeNull();
    expect(refusal(() => confirmBindingWrite(ctx, 'clusterrolebindings', binding, null))).toBeNull();
  });

  test('anyone else under the privileged-only authorizer holds nothing, so every grant is refused', () => {
    const ctx = asUser('mallory', ['system:authenticated']);
    expect(refusal(() => confirmRoleWrite(ctx, 'clusterroles', role(ALL), null))).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(refusal(() => confirmBindingWrite(ctx, 'clusterrolebindings', binding, null))).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(PRIVILEGED_GROUP_ONLY.authorize(resourceAttributes(ctx.user, 'get', { resource: 'secrets' })).decision).toBe('Deny');
  });
});
