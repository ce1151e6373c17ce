import { badRequest } from '../api/errors';
import { goQuote } from '../api/field-errors';
import { matchesFields, parseFieldSelector, type FieldSelector } from '../api/field-selector';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../api/label-selector';
import type { KubeObject } from '../api/types';
import type { Predicate } from '../storage/interfaces';
import type { ResourceDefinition } from './resource-definition';

/** The value of a selectable field of an object, as its field-label conversion defines it. */
export function fieldValue(def: ResourceDefinition, obj: KubeObject, name: string): string {
  if (name === 'metadata.name') return obj.metadata.name ?? '';
  if (name === 'metadata.namespace') return def.namespaced ? (obj.metadata.namespace ?? '') : '';
  return def.selectableFields[name]?.(obj) ?? '';
}

/**
 * Why the kind's field-label conversion refuses a label, or null if it admits it. The handler (ListResource,
 * WatchResource, DeleteCollection) answers the refusal as a bare 400; the "Unable to find ... that match label
 * selector" around it in kubectl's output is cli-runtime's, not the server's.
 */
export function fieldLabelRefusal(def: ResourceDefinition, label: string): string | null {
  const conversion = def.fieldLabelConversion;
  if (!conversion) {
    // runtime.DefaultMetaV1FieldSelectorConversion
    if (label === 'metadata.name' || label === 'metadata.namespace') return null;
    return `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
  }
  if (label === 'metadata.name' || label in def.selectableFields) return null;
  if (label === 'metadata.namespace' && conversion.namespaceLabel !== false) return null;
  if (conversion.renames && Object.hasOwn(conversion.renames, label)) return null;
  return conversion.refusal ? conversion.refusal(label) : `field label not supported: ${label}`;
}

/** Compiles labelSelector and fieldSelector query values into a storage predicate. */
export function selectionPredicate(
  def: ResourceDefinition,
  labelSelector: string,
  fieldSelector: string,
  /** The label selector parsed already (a long one, in slices). */
  labels: LabelSelector = parseLabelSelector(labelSelector),
  /** The field selector parsed already (the handler parses it before it validates the options). */
  fields: FieldSelector = parseFieldSelector(fieldSelector),
): Predicate {
  for (const r of fields) {
    const refusal = fieldLabelRefusal(def, r.field);
    if (refusal !== null) throw badRequest(refusal);
    const renamed = def.fieldLabelConversion?.renames;
    if (renamed && Object.hasOwn(renamed, r.field)) r.field = renamed[r.field];
  }
  if (labels.length === 0 && fields.length === 0) return { matches: () => true, empty: true };
  return {
    empty: false,
    matches: (obj) => matchesLabels(labels, obj.metadata.labels) && matchesFields(fields, (name) => fieldValue(def, obj, name)),
  };
}
