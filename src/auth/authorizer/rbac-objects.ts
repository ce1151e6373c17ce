import { isPlainObject, type KubeObject } from '../../api/types';
import type { PolicyRule, RoleRef } from './attributes';

/** Readers of the four RBAC kinds' fields, tolerant of what validation already refused. */

export type { RoleRef } from './attributes';

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/**
 * Objects from the policy cache are never changed in place, so what is read from one is kept
 * with it: a decision walks every binding, and must not rebuild their subjects each time.
 */
function memo<T>(read: (obj: KubeObject) => T): (obj: KubeObject) => T {
  const seen = new WeakMap<KubeObject, T>();
  return (obj) => {
    let value = seen.get(obj);
    if (value === undefined) seen.set(obj, (value = read(obj)));
    return value;
  };
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export function rulesOf(role: KubeObject | undefined): PolicyRule[] {
  return role ? readRules(role) : [];
}

const readRules = memo((role): PolicyRule[] => {
  if (!Array.isArray(role.rules)) return [];
  return role.rules.filter(isPlainObject).map((r) => {
    const rule: PolicyRule = { verbs: strings(r.verbs) };
    if (Array.isArray(r.apiGroups)) rule.apiGroups = strings(r.apiGroups);
    if (Array.isArray(r.resources)) rule.resources = strings(r.resources);
    if (Array.isArray(r.resourceNames)) rule.resourceNames = strings(r.resourceNames);
    if (Array.isArray(r.nonResourceURLs)) rule.nonResourceURLs = strings(r.nonResourceURLs);
    return rule;
  });
});

export const roleRefOf = memo((binding): RoleRef => {
  const ref = isPlainObject(binding.roleRef) ? binding.roleRef : {};
  return { apiGroup: String(ref.apiGroup ?? ''), kind: String(ref.kind ?? ''), name: String(ref.name ?? '') };
});

export const subjectsOf = memo((binding): Subject[] => {
  if (!Array.isArray(binding.subjects)) return [];
  return binding.subjects.filter(isPlainObject).map((s) => ({
    kind: String(s.kind ?? ''),
    apiGroup: typeof s.apiGroup === 'string' ? s.apiGroup : undefined,
    name: String(s.name ?? ''),
    namespace: typeof s.namespace === 'string' ? s.namespace : undefined,
  }));
});

/** The aggregationRule's clusterRoleSelectors, or null for a role without one. */
export function aggregationSelectorsOf(role: KubeObject): unknown[] | null {
  if (!isPlainObject(role.aggregationRule)) return null;
  const selectors = role.aggregationRule.clusterRoleSelectors;
  return Array.isArray(selectors) ? selectors : [];
}
