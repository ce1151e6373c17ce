import type { KubeObject } from '../../api/types';
import type { UserInfo } from '../user';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, PolicyRule, RuleResolver, RulesForResult } from './attributes';
import type { PolicyCache } from './policy-cache';
import { roleRefOf, rulesOf, subjectsOf, type RoleRef, type Subject } from './rbac-objects';
import { ruleAllows } from './rule-match';

/** Visits rules with where they came from; returning false stops the walk. */
type Visitor = (source: string | null, rule: PolicyRule | null, error: string | null) => boolean;

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** pkg/registry/rbac/validation appliesToUser: users by name, groups by membership, service accounts by their user name. */
function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || namespace;
      return ns !== '' && user.name === `${SERVICE_ACCOUNT_PREFIX}${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

/** Go's utilerrors.Aggregate message: one error alone, several in brackets. */
export function aggregateMessage(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/**
 * The RBAC authorizer and rule resolver (plugin/pkg/auth/authorizer/rbac and
 * pkg/registry/rbac/validation DefaultRuleResolver): cluster role bindings apply everywhere,
 * role bindings in their namespace; a request is allowed by the first rule that matches.
 */
export class RbacAuthorizer implements Authorizer, RuleResolver {
  constructor(private readonly policy: PolicyCache) {}

  /** GetRoleReferenceRules: the rules of the role a binding points at, or why they cannot be read. */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[]; error?: string } {
    if (ref.kind === 'Role') {
      const role = this.policy.getRole(bindingNamespace, ref.name);
      return role ? { rules: rulesOf(role) } : { rules: [], error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    if (ref.kind === 'ClusterRole') {
      const role = this.policy.getClusterRole(ref.name);
      return role ? { rules: rulesOf(role) } : { rules: [], error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    return { rules: [], error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  }

  private visitBinding(user: UserInfo, binding: KubeObject, namespace: string, describe: (s: Subject) => string, visit: Visitor): boolean {
    const subject = subjectsOf(binding).find((s) => appliesToUser(user, s, namespace));
    if (!subject) return true;
    const { rules, error } = this.roleReferenceRules(roleRefOf(binding), namespace);
    if (error) return visit(null, null, error);
    const source = describe(subject);
    for (const rule of rules) if (!visit(source, rule, null)) return false;
    return true;
  }

  visitRulesFor(user: UserInfo, namespace: string, visit: Visitor): void {
    for (const crb of this.policy.listClusterRoleBindings()) {
      const ref = roleRefOf(crb);
      const describe = (s: Subject): string =>
        `ClusterRoleBinding ${JSON.stringify(crb.metadata.name)} of ${ref.kind} ${JSON.stringify(ref.name)} to ${describeSubject(s, '')}`;
      if (!this.visitBinding(user, crb, '', describe, visit)) return;
    }
    if (!namespace) return;
    for (const rb of this.policy.listRoleBindings(namespace)) {
      const ref = roleRefOf(rb);
      const describe = (s: Subject): string =>
        `RoleBinding ${JSON.stringify(`${rb.metadata.name}/${namespace}`)} of ${ref.kind} ${JSON.stringify(ref.name)} to ${describeSubject(s, namespace)}`;
      if (!this.visitBinding(user, rb, namespace, describe, visit)) return;
    }
  }

  /** RBACAuthorizer.Authorize: allowed with the binding that allowed it; otherwise no opinion, with any resolution errors. */
  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    let allowedBy: string | null = null;
    const errors: string[] = [];
    this.visitRulesFor(attrs.user, attrs.namespace, (source, rule, error) => {
      if (rule && ruleAllows(attrs, rule)) {
        allowedBy = source;
        return false;
      }
      if (error) errors.push(error);
      return true;
    });
    if (allowedBy !== null) return { decision: 'Allow', reason: `RBAC: allowed by ${allowedBy}` };
    return { decision: 'NoOpinion', reason: errors.length > 0 ? `RBAC: ${aggregateMessage(errors)}` : '' };
  }

  /** Every rule that applies to the user in the namespace, and the errors met on the way. */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule) rules.push(rule);
      if (error) errors.push(error);
      return true;
    });
    return { rules, errors };
  }

  rulesFor(user: UserInfo, namespace: string): RulesForResult {
    const { rules, errors } = this.policyRulesFor(user, namespace);
    const result: RulesForResult = {
      resourceRules: rules
        .filter((r) => (r.resources ?? []).length > 0)
        .map((r) => ({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames ?? [] })),
      nonResourceRules: rules.filter((r) => (r.nonResourceURLs ?? []).length > 0).map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs ?? [] })),
      incomplete: false,
    };
    if (errors.length > 0) result.error = aggregateMessage(errors);
    return result;
  }
}
