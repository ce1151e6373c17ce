import { jsonEqual } from '../../api/deep-equal';
import type { KubeObject } from '../../api/types';
import { requestScope, type RequestScope } from '../request-scope';
import { resourceAttributes, type PolicyRule } from './attributes';
import { forbiddenStatus } from './forbidden';
import { SYSTEM_MASTERS } from './modes';
import { aggregateMessage } from './rbac';
import { aggregationSelectorsOf, roleRefOf, rulesOf } from './rbac-objects';
import { compactRules, compactString, covers, goQuotedList } from './rule-match';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** What it takes to set an aggregationRule: everything (policybased storage's fullAuthority). */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** rbacregistry.EscalationAllowed: system:masters may write anything. */
function escalationAllowed(scope: RequestScope): boolean {
  return scope.user.groups.includes(SYSTEM_MASTERS);
}

function authorized(scope: RequestScope, verb: string, resource: string, namespace: string, name: string, apiGroup = RBAC_GROUP): boolean {
  const attrs = resourceAttributes(scope.user, verb, { apiGroup, apiVersion: '*', resource, namespace, name });
  return scope.authorizer.authorize(attrs).decision === 'Allow';
}

/** ConfirmNoEscalation: the writer's rules in the namespace must cover `rules`; the message lists what is missing. */
function confirmNoEscalation(scope: RequestScope, namespace: string, rules: PolicyRule[]): string | null {
  const owned = scope.rbac.policyRulesFor(scope.user, namespace);
  const { covered, missing } = covers(owned.rules, rules);
  if (covered) return null;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(scope.user.name)} (groups=${goQuotedList(scope.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owned.errors.length > 0) msg += `; resolution errors: [${aggregateMessage(owned.errors)}]`;
  return msg;
}

/**
 * Escalation prevention of a Role or ClusterRole written by the request in scope
 * (pkg/registry/rbac/role and clusterrole policybased storage; `prev` on updates): the writer
 * must hold what it grants, unless it is in system:masters or has `escalate` on the role. Writes
 * the server makes itself (no request scope) are not checked.
 */
export function confirmRoleWrite(resource: 'roles' | 'clusterroles', role: KubeObject, prev: KubeObject | null): void {
  const scope = requestScope();
  if (!scope || escalationAllowed(scope)) return;
  if (prev && onlyGcFieldsChanged(role, prev)) return;
  const namespace = role.metadata.namespace ?? '';
  const name = role.metadata.name ?? '';
  if (authorized(scope, 'escalate', resource, namespace, name)) return;
  const missing = confirmNoEscalation(scope, namespace, rulesOf(role));
  if (missing) throw forbiddenStatus(RBAC_GROUP, resource, name, missing);
  const aggregates = resource === 'clusterroles' && (aggregationSelectorsOf(role) !== null || (prev !== null && aggregationSelectorsOf(prev) !== null));
  if (aggregates && confirmNoEscalation(scope, namespace, FULL_AUTHORITY)) {
    throw forbiddenStatus(RBAC_GROUP, resource, name, 'must have cluster-admin privileges to use the aggregationRule');
  }
}

/**
 * Escalation prevention of a RoleBinding or ClusterRoleBinding (rolebinding and
 * clusterrolebinding policybased storage): `bind` on the referenced role in the binding's
 * namespace, or holding every permission of that role.
 */
export function confirmBindingWrite(resource: 'rolebindings' | 'clusterrolebindings', binding: KubeObject, prev: KubeObject | null): void {
  const scope = requestScope();
  if (!scope || escalationAllowed(scope)) return;
  if (prev && onlyGcFieldsChanged(binding, prev)) return;
  const namespace = binding.metadata.namespace ?? '';
  const name = binding.metadata.name ?? '';
  const ref = roleRefOf(binding);
  const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
  if (roleResource && authorized(scope, 'bind', roleResource, namespace, ref.name, ref.apiGroup)) return;
  const { rules, error } = scope.rbac.roleReferenceRules(ref, namespace);
  if (error) throw forbiddenStatus(RBAC_GROUP, resource, name, error);
  const missing = confirmNoEscalation(scope, namespace, rules);
  if (missing) throw forbiddenStatus(RBAC_GROUP, resource, name, missing);
}

/** IsOnlyMutatingGCFields: only ownerReferences and finalizers changed, which the garbage collector needs to write. */
function onlyGcFieldsChanged(next: KubeObject, prev: KubeObject): boolean {
  const strip = (o: KubeObject): KubeObject => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(next), strip(prev));
}
