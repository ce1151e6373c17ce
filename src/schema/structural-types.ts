import { field, type FieldErrorList } from '../api/field-errors';
import type { JSONSchemaProps } from './json-schema-props';

type Level = 'root' | 'item' | 'field';

const EMPTY_TYPE: Record<Exclude<Level, 'root'>, string> = {
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

/**
 * The part of apiextensions-apiserver's structural schema check (validateStructuralInvariants)
 * about types below the root: every property, item and additionalProperties schema has a type
 * (unless it is int-or-string or preserves unknown fields), and an array has items. A `null`
 * property decodes to an empty schema, which this refuses as kube does.
 */
export function structuralTypeErrors(s: JSONSchemaProps, path: string, level: Level = 'root'): FieldErrorList {
  const errs: FieldErrorList = [];
  if (s.type === 'array' && !s.items) errs.push(field.required(`${path}.items`, 'must be specified'));
  if (s.items) errs.push(...structuralTypeErrors(s.items, `${path}.items`, 'item'));
  for (const [key, child] of Object.entries(s.properties ?? {})) errs.push(...structuralTypeErrors(child, `${path}.properties[${key}]`, 'field'));
  if (typeof s.additionalProperties === 'object') errs.push(...structuralTypeErrors(s.additionalProperties, `${path}.additionalProperties`, 'field'));
  if (level !== 'root' && !s.type && !s['x-kubernetes-int-or-string'] && !s['x-kubernetes-preserve-unknown-fields'] && !s['x-kubernetes-embedded-resource']) {
    errs.push(field.required(`${path}.type`, EMPTY_TYPE[level]));
  }
  return errs;
}
