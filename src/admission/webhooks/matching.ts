import { objectsIn, stringsIn } from '../../api/json-read';
import { fromLabelSelectorStruct, matchesLabels, type LabelSelectorStruct } from '../../api/label-selector';
import { isPlainObject } from '../../api/types';
import type { AdmissionOperation } from '../admission';

/** What a webhook's rules are matched against: the request's resource, as the URL named it. */
export interface RuleTarget {
  operation: AdmissionOperation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** Cluster-scoped kinds, and namespaces themselves, match scope "Cluster". */
  clusterScoped: boolean;
}

const anyOrHas = (values: string[], value: string): boolean => values.includes('*') || values.includes(value);

/** "pods" matches pods; "pods/*" every subresource of pods; "*" every resource; "*\/status" every status; "*\/*" everything (rules.Matcher.resource). */
function resourceMatches(patterns: string[], resource: string, subresource: string): boolean {
  const wanted = subresource ? `${resource}/${subresource}` : resource;
  return patterns.some((p) => {
    if (p === '*/*' || p === wanted) return true;
    const [res, sub] = p.split('/', 2);
    if (sub === undefined) return res === '*' && !subresource;
    return (res === '*' && sub === subresource) || (res === resource && sub === '*' && !!subresource);
  });
}

/** rules.Matcher.Matches for one RuleWithOperations. */
export function ruleMatches(rule: Record<string, unknown>, t: RuleTarget): boolean {
  const scope = typeof rule.scope === 'string' ? rule.scope : '*';
  if (scope === 'Cluster' && !t.clusterScoped) return false;
  if (scope === 'Namespaced' && t.clusterScoped) return false;
  return (
    anyOrHas(stringsIn(rule.operations), t.operation) &&
    anyOrHas(stringsIn(rule.apiGroups), t.group) &&
    anyOrHas(stringsIn(rule.apiVersions), t.version) &&
    resourceMatches(stringsIn(rule.resources), t.resource, t.subresource)
  );
}

export function anyRuleMatches(hook: Record<string, unknown>, t: RuleTarget): boolean {
  return objectsIn(hook.rules).some((rule) => ruleMatches(rule, t));
}

/** An absent or empty selector selects everything (metav1.LabelSelectorAsSelector). */
export function selectorIsEmpty(selector: unknown): boolean {
  if (!isPlainObject(selector)) return true;
  const s = selector as LabelSelectorStruct;
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}

export function selectorMatches(selector: unknown, labels: Record<string, string> | undefined): boolean {
  if (selectorIsEmpty(selector)) return true;
  return matchesLabels(fromLabelSelectorStruct(selector as LabelSelectorStruct), labels ?? {});
}
