import type { FieldSelector } from '../../api/field-selector';
import type { UserInfo } from '../user';

/** What an authorizer is asked, as k8s.io/apiserver's authorizer.Attributes. */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  /** A resource request (an API object) or a non-resource request (a path). */
  resourceRequest: boolean;
  /** The path of a non-resource request. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The field selector of a list, watch or deletecollection (GetFieldSelector); absent when none parsed. */
  fieldSelector?: FieldSelector;
}

/** authorizer.Decision: only DecisionAllow lets a request through; NoOpinion lets the next authorizer speak. */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  /** An evaluation error (the decision stands; an error with no Allow is a 500 for the filter). */
  error?: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationResult;
}

/** A PolicyRule of rbac.authorization.k8s.io/v1, as data. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

/** authorizer.RuleResolver: what a user may do in a namespace (SelfSubjectRulesReview). */
export interface RulesForResult {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  incomplete: boolean;
  error?: string;
}

export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RulesForResult;
}

/** A role a binding points at (rbac.authorization.k8s.io/v1 RoleRef). */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/**
 * What RBAC escalation prevention reads, whatever the authorization modes (pkg/registry/rbac/validation
 * AuthorizationRuleResolver): the rules a user holds in a namespace, and the rules of a referenced role.
 */
export interface PolicyRuleResolver {
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] };
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[]; error?: string };
}

/**
 * The authorization one request is subject to, carried by its context so that the checks made
 * below the filters (create-on-update, unsafe deletion, RBAC escalation, signers, reviews) ask
 * the same authorizer the filter asked.
 */
export interface RequestAuthorizer extends Authorizer, RuleResolver {
  readonly rbac: PolicyRuleResolver;
}

export function resourceAttributes(user: UserInfo, verb: string, target: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return {
    user,
    verb,
    resourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    ...target,
  };
}

export function nonResourceAttributes(user: UserInfo, verb: string, path: string): AuthorizationAttributes {
  return { ...resourceAttributes(user, verb, {}), resourceRequest: false, path };
}
