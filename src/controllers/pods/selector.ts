import { fromLabelSelectorStruct, matchesLabels } from '../../api/label-selector';
import type { LabelSelector } from '../../generated/types/meta/v1';

/**
 * metav1.LabelSelectorAsSelector as a predicate: no selector matches nothing, an empty one
 * everything.
 */
export function selectorMatcher(selector: LabelSelector | undefined): (labels: Record<string, string> | undefined) => boolean {
  if (!selector) return () => false;
  const requirements = fromLabelSelectorStruct(selector as Parameters<typeof fromLabelSelectorStruct>[0]);
  return (labels) => matchesLabels(requirements, labels);
}
