import { badRequest } from '../api/errors';
import { matchesFields, parseFieldSelector } from '../api/field-selector';
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

/** Compiles labelSelector and fieldSelector query values into a storage predicate. */
export function selectionPredicate(
  def: ResourceDefinition,
  labelSelector: string,
  fieldSelector: string,
  /** The label selector parsed already (a long one, in slices). */
  labels: LabelSelector = parseLabelSelector(labelSelector),
): Predicate {
  const fields = parseFieldSelector(fieldSelector);
  for (const r of fields) {
    if (r.field !== 'metadata.name' && r.field !== 'metadata.namespace' && !(r.field in def.selectableFields)) {
      const gv = def.group ? `${def.group}/${def.version}` : `/${def.version}`;
      throw badRequest(
        `Unable to find "${gv}, Resource=${def.resource}" that match label selector "${labelSelector}", field selector "${fieldSelector}": field label not supported: ${r.field}`,
      );
    }
  }
  if (labels.length === 0 && fields.length === 0) return { matches: () => true, empty: true };
  return {
    empty: false,
    matches: (obj) => matchesLabels(labels, obj.metadata.labels) && matchesFields(fields, (name) => fieldValue(def, obj, name)),
  };
}
