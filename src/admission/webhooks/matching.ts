import { stringsIn } from '../../api/json-read';
import { fromLabelSelectorStruct, matchesLabels, type LabelSelectorStruct } from '../../api/label-selector';
import { isPlainObject } from '../../api/types';
import type { KubeObject } from '../../api/types';
import type { AdmissionAttributes, AdmissionOperation } from '../admission';

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

const labelsOf = (obj: KubeObject | undefined) => obj?.metadata.labels as Record<string, string> | undefined;

/**
 * MatchNamespaceSelector and MatchObjectSelector of a webhook or a policy's match resources: the
 * object (or the old one) carries the selected labels; the request's namespace does, a namespace
 * itself by its own labels, and cluster-scoped requests always match.
 */
export async function selectorsMatch(
  criteria: Record<string, unknown>,
  attrs: AdmissionAttributes,
  namespaceLabels: (namespace: string) => Promise<Record<string, string> | undefined>,
): Promise<boolean> {
  const objectSelected =
    selectorIsEmpty(criteria.objectSelector) || [attrs.object, attrs.oldObject].some((o) => o && selectorMatches(criteria.objectSelector, labelsOf(o)));
  if (!objectSelected) return false;
  if (selectorIsEmpty(criteria.namespaceSelector)) return true;
  if (!attrs.def.group && attrs.def.resource === 'namespaces') return selectorMatches(criteria.namespaceSelector, labelsOf(attrs.object ?? attrs.oldObject));
  if (!attrs.def.namespaced) return true;
  return selectorMatches(criteria.namespaceSelector, await namespaceLabels(attrs.namespace));
}
