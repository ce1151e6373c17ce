import { fromLabelSelectorStruct, matchesLabels, type LabelSelector } from '../api/label-selector';
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, Taint, Toleration } from '../generated/types/core/v1';
import type { LabelSelector as LabelSelectorStruct } from '../generated/types/meta/v1';

/** Toleration.ToleratesTaint. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  if (t.operator === undefined || t.operator === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return false;
}

export function toleratedBy(tolerations: Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => tolerates(t, taint));
}

/** The first NoSchedule or NoExecute taint the pod does not tolerate (FindMatchingUntoleratedTaint). */
export function untoleratedTaint(node: Node, pod: Pod): Taint | undefined {
  return (node.spec?.taints ?? []).find((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !toleratedBy(pod.spec?.tolerations, t));
}

const INT = /^[+-]?\d+$/;

/** nodeaffinity's requirement match over a node's labels (or its metadata.name for matchFields). */
function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1 || !INT.test(value) || !INT.test(values[0])) return false;
      const [a, b] = [BigInt(value), BigInt(values[0])];
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** A NodeSelectorTerm: every expression and field matches; an empty term matches nothing. */
export function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  if (!exprs.every((r) => requirementMatches(r, r.key === undefined ? undefined : labels[r.key]))) return false;
  return fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, node.metadata.name));
}

/** The NodeAffinity filter's test: nodeSelector, then the required terms (ORed). */
export function nodeMatchesPod(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t) => termMatches(t, node));
}

/** metav1.LabelSelectorAsSelector: none selects nothing (null here), an empty one everything. */
export function selectorOf(sel: LabelSelectorStruct | undefined): LabelSelector | null {
  if (!sel) return null;
  return fromLabelSelectorStruct(sel as Parameters<typeof fromLabelSelectorStruct>[0]);
}

export function selects(sel: LabelSelector | null, labels: Record<string, string> | undefined): boolean {
  return sel !== null && matchesLabels(sel, labels);
}
