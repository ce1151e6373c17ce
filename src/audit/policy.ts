import { readFileSync } from 'node:fs';
import { isPlainObject } from '../api/types';
import { decodeYaml } from '../codec/yaml';
import type { UserInfo } from '../auth/user';

/** audit.k8s.io/v1 Policy: which requests are recorded, how much of them, at which stages. */

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: Level;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: Stage[];
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: Stage[];
}

/** What a rule is matched against (authorizer.Attributes as the audit checker reads them). */
export interface AuditAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  path: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const strings = (v: unknown, what: string): string[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error(`${what} must be a list of strings`);
  return v as string[];
};

function stages(v: unknown, what: string): Stage[] {
  const list = strings(v, what);
  for (const s of list) if (!(STAGES as readonly string[]).includes(s)) throw new Error(`${what}: unknown stage "${s}"`);
  return list as Stage[];
}

/** Parses and validates a Policy document (YAML or JSON), as audit/policy.LoadPolicyFromBytes. */
export function parseAuditPolicy(text: Buffer, source: string): AuditPolicy {
  const doc = decodeYaml(text);
  if (!isPlainObject(doc)) throw new Error(`${source}: an audit policy must be an object`);
  if (doc.kind !== 'Policy' || (doc.apiVersion !== 'audit.k8s.io/v1' && doc.apiVersion !== 'audit.k8s.io/v1beta1')) {
    throw new Error(`${source}: expected an audit.k8s.io/v1 Policy, got ${String(doc.apiVersion)} ${String(doc.kind)}`);
  }
  const rules = Array.isArray(doc.rules) ? doc.rules : [];
  if (rules.length === 0) throw new Error(`loaded illegal policy with 0 rules from file ${source}`);
  return {
    omitStages: stages(doc.omitStages, 'omitStages'),
    rules: rules.map((r, i) => {
      const at = `rules[${i}]`;
      if (!isPlainObject(r)) throw new Error(`${source}: ${at} must be an object`);
      if (!(LEVELS as readonly string[]).includes(r.level as string)) throw new Error(`${source}: ${at}.level: Unsupported value: "${String(r.level)}"`);
      const resources = Array.isArray(r.resources) ? r.resources : [];
      const nonResourceURLs = strings(r.nonResourceURLs, `${at}.nonResourceURLs`);
      if (nonResourceURLs.length > 0 && (resources.length > 0 || strings(r.namespaces, `${at}.namespaces`).length > 0)) {
        throw new Error(`${source}: ${at}: rules cannot apply to both regular resources and non-resource URLs`);
      }
      return {
        level: r.level as Level,
        users: strings(r.users, `${at}.users`),
        userGroups: strings(r.userGroups, `${at}.userGroups`),
        verbs: strings(r.verbs, `${at}.verbs`),
        namespaces: strings(r.namespaces, `${at}.namespaces`),
        nonResourceURLs,
        omitStages: stages(r.omitStages, `${at}.omitStages`),
        resources: resources.map((g, j) => {
          if (!isPlainObject(g)) throw new Error(`${source}: ${at}.resources[${j}] must be an object`);
          return {
            group: typeof g.group === 'string' ? g.group : '',
            resources: strings(g.resources, `${at}.resources[${j}].resources`),
            resourceNames: strings(g.resourceNames, `${at}.resources[${j}].resourceNames`),
          };
        }),
      };
    }),
  };
}

export function loadAuditPolicy(file: string): AuditPolicy {
  return parseAuditPolicy(readFileSync(file), file);
}

function resourceMatches(entry: string, attrs: AuditAttributes): boolean {
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  if (entry === '*' || entry === combined) return true;
  if (attrs.subresource && entry === `*/${attrs.subresource}`) return true;
  return entry === `${attrs.resource}/*`;
}

/** ruleMatchesResource of k8s.io/apiserver audit/policy/checker.go. */
function ruleMatchesResource(rule: PolicyRule, attrs: AuditAttributes): boolean {
  if (!attrs.resourceRequest) return false;
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(attrs.namespace)) return false;
  if (rule.resources.length === 0) return true;
  return rule.resources.some(
    (gr) =>
      gr.group === attrs.apiGroup &&
      (gr.resources.length === 0 ||
        ((gr.resourceNames.length === 0 || gr.resourceNames.includes(attrs.name)) && gr.resources.some((r) => resourceMatches(r, attrs)))),
  );
}

function ruleMatches(rule: PolicyRule, attrs: AuditAttributes): boolean {
  if (rule.users.length > 0 && !rule.users.includes(attrs.user.name)) return false;
  if (rule.userGroups.length > 0 && !attrs.user.groups.some((g) => rule.userGroups.includes(g))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(attrs.verb)) return false;
  if (rule.nonResourceURLs.length > 0) {
    if (attrs.resourceRequest) return false;
    if (!rule.nonResourceURLs.some((u) => u === attrs.path || (u.endsWith('*') && attrs.path.startsWith(u.slice(0, -1))))) return false;
  }
  if (rule.namespaces.length > 0 || rule.resources.length > 0) return ruleMatchesResource(rule, attrs);
  return true;
}

/** The first rule that matches decides the level and omitted stages; no rule means None. */
export function evaluatePolicy(policy: AuditPolicy, attrs: AuditAttributes): { level: Level; omitStages: Stage[] } {
  const rule = policy.rules.find((r) => ruleMatches(r, attrs));
  if (!rule) return { level: 'None', omitStages: policy.omitStages };
  return { level: rule.level, omitStages: [...new Set([...policy.omitStages, ...rule.omitStages])] };
}
