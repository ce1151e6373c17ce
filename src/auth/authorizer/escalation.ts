import { jsonEqual } from '../../api/deep-equal';
import type { KubeObject } from '../../api/types';
import type { RequestContext } from '../../registry/request-context';
import { resourceAttributes, type PolicyRule } from './attributes';
import { forbiddenStatus } from './forbidden';
import { FULL_AUTHORITY, SYSTEM_MASTERS } from './modes';
import { aggregateMessage } from './rbac';
import { aggregationSelectorsOf, roleRefOf, rulesOf } from './rbac-objects';
import { compactRules, compactString, covers, goQuotedList } from './rule-match';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** rbacregistry.EscalationAllowed: system:masters may write anything. */
function escalationAllowed(ctx: RequestContext): boolean {
  return ctx.user.groups.includes(SYSTEM_MASTERS);
}

function authorized(ctx: RequestContext, verb: string, resource: string, namespace: string, name: string, apiGroup = RBAC_GROUP): boolean {
  const attrs = resourceAttributes(ctx.user, verb, { apiGroup, apiVersion: '*', resource, namespace, name });
  return ctx.authorizer.authorize(attrs).decision === 'Allow';
}

/** ConfirmNoEscalation: the writer's rules in the namespace must cover `rules`; the message lists what is missing. */
function confirmNoEscalation(ctx: RequestContext, namespace: string, rules: PolicyRule[]): string | null {
  const owned = ctx.authorizer.rbac.policyRulesFor(ctx.user, namespace);
  const { covered, missing } = covers(owned.rules, rules);
  if (covered) return null;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(ctx.user.name)} (groups=${goQuotedList(ctx.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owned.errors.length > 0) msg += `; resolution errors: [${aggregateMessage(owned.errors)}]`;
  return msg;
}

/**
 * Escalation prevention of a Role or ClusterRole written by the request
 * (pkg/registry/rbac/role and clusterrole policybased storage; `prev` on updates): the writer
 * must hold what it grants, unless it is in system:masters or has `escalate` on the role.
 */
export function confirmRoleWrite(ctx: RequestContext, resource: 'roles' | 'clusterroles', role: KubeObject, prev: KubeObject | null): void {
  if (escalationAllowed(ctx)) return;
  if (prev && onlyGcFieldsChanged(role, prev)) return;
  const namespace = role.metadata.namespace ?? '';
  const name = role.metadata.name ?? '';
  if (authorized(ctx, 'escalate', resource, namespace, name)) return;
  const missing = confirmNoEscalation(ctx, namespace, rulesOf(role));
  if (missing) throw forbiddenStatus(RBAC_GROUP, resource, name, missing);
  const aggregates = resource === 'clusterroles' && (aggregationSelectorsOf(role) !== null || (prev !== null && aggregationSelectorsOf(prev) !== null));
  if (aggregates && confirmNoEscalation(ctx, namespace, FULL_AUTHORITY)) {
    throw forbiddenStatus(RBAC_GROUP, resource, name, 'must have cluster-admin privileges to use the aggregationRule');
  }
}

/**
 * Escalation prevention of a RoleBinding or ClusterRoleBinding (rolebinding and
 * clusterrolebinding policybased storage): `bind` on the referenced role in the binding's
 * namespace, or holding every permission of that role.
 */
export function confirmBindingWrite(ctx: RequestContext, resource: 'rolebindings' | 'clusterrolebindings', binding: KubeObject, prev: KubeObject | null): void {
  if (escalationAllowed(ctx)) return;
  if (prev && onlyGcFieldsChanged(binding, prev)) return;
  const namespace = binding.metadata.namespace ?? '';
  const name = binding.metadata.name ?? '';
  const ref = roleRefOf(binding);
  const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
  if (roleResource && authorized(ctx, 'bind', roleResource, namespace, ref.name, ref.apiGroup)) return;
  const { rules, error } = ctx.authorizer.rbac.roleReferenceRules(ref, namespace);
  if (error) throw forbiddenStatus(RBAC_GROUP, resource, name, error);
  const missing = confirmNoEscalation(ctx, namespace, rules);
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
