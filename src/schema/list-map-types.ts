import { field, type FieldErrorList } from '../api/field-errors';
import type { JSONSchemaProps } from './json-schema-props';

const MAP_TYPES = ['atomic', 'granular'];
const LIST_TYPES = ['atomic', 'set', 'map'];

/** A required type the node lacks, or the one it has instead. */
function typeError(s: JSONSchemaProps, at: string, detail: string): FieldErrorList {
  return [s.type ? field.invalid(`${at}.type`, s.type, detail) : field.required(`${at}.type`, detail)];
}

/**
 * ValidateCustomResourceDefinitionOpenAPISchema's checks of one node's `x-kubernetes-map-type`,
 * `x-kubernetes-list-type` and `x-kubernetes-list-map-keys`, in its order, with the set-item and
 * map-key checks kube makes of a new CRD (requireAtomicSetType, requireMapListKeysMapSetValidation).
 * The values shown are kube's, its quirks included (a set's object item shows its list type).
 */
export function listAndMapTypeErrors(s: JSONSchemaProps, at: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const mapType: string | undefined = s['x-kubernetes-map-type'];
  const listType: string | undefined = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  const items = s.items;
  if (mapType !== undefined && s.type !== 'object') errs.push(...typeError(s, at, 'must be object if x-kubernetes-map-type is specified'));
  if (mapType !== undefined && !MAP_TYPES.includes(mapType)) errs.push(field.notSupported(`${at}.x-kubernetes-map-type`, mapType, MAP_TYPES));
  if (listType !== undefined && s.type !== 'array') errs.push(...typeError(s, at, 'must be array if x-kubernetes-list-type is specified'));
  else if (listType === 'set' && items) {
    const itemListType: string | undefined = items['x-kubernetes-list-type'];
    if (items.type === 'array' && itemListType !== undefined && itemListType !== 'atomic')
      errs.push(field.invalid(`${at}.items.x-kubernetes-list-type`, itemListType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic')
      errs.push(field.invalid(`${at}.items.x-kubernetes-map-type`, itemListType ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
  }
  if (listType !== undefined && !LIST_TYPES.includes(listType)) errs.push(field.notSupported(`${at}.x-kubernetes-list-type`, listType, LIST_TYPES));
  if (keys.length > 0 && listType !== 'map') {
    const detail = 'must be map if x-kubernetes-list-map-keys is non-empty';
    errs.push(
      listType === undefined ? field.required(`${at}.x-kubernetes-list-type`, detail) : field.invalid(`${at}.x-kubernetes-list-type`, listType, detail),
    );
  }
  if (listType === 'map') {
    if (keys.length === 0) errs.push(field.required(`${at}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (!items) errs.push(field.required(`${at}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    else if (items.type !== 'object')
      errs.push(field.invalid(`${at}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    else {
      const seen = new Set<string>();
      for (const key of keys) {
        const property = items.properties?.[key];
        if (!property) errs.push(field.invalid(`${at}.x-kubernetes-list-map-keys`, keys, 'entries must all be names of item properties'));
        else if (property.type === 'array' || property.type === 'object')
          errs.push(field.invalid(`${at}.items.properties[${key}].type`, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        if (seen.has(key)) errs.push(field.invalid(`${at}.x-kubernetes-list-map-keys`, keys, 'must not contain duplicate entries'));
        seen.add(key);
      }
    }
  }
  if ((listType === 'set' || listType === 'map') && items) errs.push(...mapSetItemErrors(items, listType, keys, at));
  return errs;
}

/** validateMapListKeysMapSet: a set's or map's items are not nullable; a map's keys are required or defaulted, and not nullable. */
function mapSetItemErrors(items: JSONSchemaProps, listType: 'set' | 'map', keys: string[], at: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (items.nullable) errs.push(field.forbidden(`${at}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType !== 'map') return errs;
  const required = new Set(items.required ?? []);
  for (const key of keys) {
    const property = items.properties?.[key];
    if (!property) continue;
    if (!required.has(key) && property.default === undefined)
      errs.push(
        field.required(
          `${at}.items.properties[${key}].default`,
          'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        ),
      );
    if (property.nullable)
      errs.push(field.forbidden(`${at}.items.properties[${key}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
  }
  return errs;
}
