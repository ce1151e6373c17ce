import type { PolicyRule, RequestAuthorizer, RulesForResult } from './attributes';
import { jsonClone } from '../../api/json-clone';

/**
 * The privileged group and the authorizer of kapi's own contexts, apart from the modes so that
 * the registry's request contexts depend on nothing that reads the registry (RBAC's policy cache).
 */

/** The group whose members may do anything (user.SystemPrivilegedGroup). */
export const SYSTEM_MASTERS = 'system:masters';

/** Every rule there is, as a rules review lists it. */
export const EVERYTHING: RulesForResult = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

/** Every permission there is: what it takes to set an aggregationRule (policybased storage's fullAuthority). */
export const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/**
 * What kapi's own writes are subject to: they act as system:apiserver, a member of
 * system:masters, which every mode allows. Anyone else is refused everything, so a context
 * built for the server can never lend a client its rights.
 */
export const PRIVILEGED_GROUP_ONLY: RequestAuthorizer = {
  authorize: (attrs) =>
    attrs.user.groups.includes(SYSTEM_MASTERS) ? { decision: 'Allow', reason: '' } : { decision: 'Deny', reason: 'not a request of the server' },
  rulesFor: (user) => (user.groups.includes(SYSTEM_MASTERS) ? jsonClone(EVERYTHING) : { resourceRules: [], nonResourceRules: [], incomplete: false }),
  rbac: {
    policyRulesFor: (user) => ({ rules: user.groups.includes(SYSTEM_MASTERS) ? FULL_AUTHORITY : [], errors: [] }),
    roleReferenceRules: () => ({ rules: [], error: 'roles are not resolved outside a request' }),
  },
};
