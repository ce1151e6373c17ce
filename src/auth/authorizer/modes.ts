import type { UserInfo } from '../user';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RequestAuthorizer, RuleResolver, RulesForResult } from './attributes';
import type { RbacAuthorizer } from './rbac';
import { EVERYTHING, SYSTEM_MASTERS } from './privileged-group';
import { jsonClone } from '../../api/json-clone';

export { FULL_AUTHORITY, PRIVILEGED_GROUP_ONLY, SYSTEM_MASTERS } from './privileged-group';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

const alwaysAllow: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'Allow', reason: '' }),
  rulesFor: () => jsonClone(EVERYTHING),
};

const alwaysDeny: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** authorizerfactory.NewPrivilegedGroups: members of system:masters are allowed everything, whatever the modes. */
const privilegedGroups: Authorizer = {
  authorize: (attrs) => (attrs.user.groups.includes(SYSTEM_MASTERS) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' }),
};

/**
 * union.New: authorizers asked in order; the first Allow or Deny decides, NoOpinion reasons and
 * errors are gathered for the refusal.
 */
class UnionAuthorizer implements Authorizer, RuleResolver {
  constructor(
    private readonly authorizers: Authorizer[],
    private readonly resolvers: RuleResolver[],
  ) {}

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    const reasons: string[] = [];
    const errors: string[] = [];
    for (const a of this.authorizers) {
      const result = a.authorize(attrs);
      if (result.error) errors.push(result.error);
      if (result.decision !== 'NoOpinion') return result;
      if (result.reason) reasons.push(result.reason);
    }
    const out: AuthorizationResult = { decision: 'NoOpinion', reason: reasons.join('\n') };
    if (errors.length > 0) out.error = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
    return out;
  }

  /** union.RulesFor: the concatenation of every resolver's rules. */
  rulesFor(user: UserInfo, namespace: string): RulesForResult {
    const out: RulesForResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errors: string[] = [];
    for (const r of this.resolvers) {
      const part = r.rulesFor(user, namespace);
      out.resourceRules.push(...part.resourceRules);
      out.nonResourceRules.push(...part.nonResourceRules);
      out.incomplete ||= part.incomplete;
      if (part.error) errors.push(part.error);
    }
    if (errors.length > 0) out.error = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
    return out;
  }
}

/** Parses --authorization-mode: a comma list of known modes, each at most once. */
export function parseAuthorizationModes(value: string): AuthorizationMode[] {
  const modes = value.split(',').map((m) => m.trim());
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) throw new Error(`authorization-mode "${mode}" is not a valid mode`);
  }
  if (new Set(modes).size !== modes.length) throw new Error(`authorization-mode ${JSON.stringify(value)} has mode specified more than once`);
  return modes as AuthorizationMode[];
}

/**
 * pkg/kubeapiserver/authorizer BuildAuthorizer: the privileged group first, then the modes in
 * order; RBAC's rules answer escalation prevention whatever the modes, as kube's RBAC registry
 * always resolves them. `node` is the Node mode's authorizer, there when the modes name it.
 */
export function buildAuthorizer(modes: AuthorizationMode[], rbac: RbacAuthorizer, node: (Authorizer & RuleResolver) | null): RequestAuthorizer {
  const byMode = { AlwaysAllow: alwaysAllow, AlwaysDeny: alwaysDeny, RBAC: rbac, Node: node };
  const chosen = modes.map((m) => {
    const authorizer = byMode[m];
    if (!authorizer) throw new Error(`authorization mode ${m} has no authorizer`);
    return authorizer;
  });
  const union = new UnionAuthorizer([privilegedGroups, ...chosen], chosen);
  return {
    authorize: (attrs) => union.authorize(attrs),
    rulesFor: (user, namespace) => union.rulesFor(user, namespace),
    rbac,
  };
}
