import type { JSONSchemaProps } from './json-schema-props';

/**
 * Structural defaulting of custom resources, as apiextensions-apiserver's
 * `pkg/apiserver/schema/defaulting` does it. kube runs pruneNonNullableNullsWithoutDefaults while
 * decoding, right after pruning unknown fields (and only when it prunes), then
 * applySchemaDefaults; both change the object in place. Defaults only come from `properties`,
 * `additionalProperties` and `items`: structural schemas allow none under allOf/anyOf/oneOf/not.
 */

type JSONObject = Record<string, unknown>;

const isObject = (v: unknown): v is JSONObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema of a field: its property, else the additionalProperties schema. */
function fieldSchema(s: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  if (!s) return undefined;
  if (s.properties && Object.hasOwn(s.properties, key)) return s.properties[key];
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

const isNonNullableNull = (v: unknown, s: JSONSchemaProps | undefined): s is JSONSchemaProps => v === null && !!s && !s.nullable;

/**
 * Removes null fields whose schema neither allows null nor has a default (a null with a default
 * is left for applySchemaDefaults to replace). Null list items are kept.
 */
export function pruneNonNullableNullsWithoutDefaults(schema: JSONSchemaProps | undefined, x: unknown): void {
  if (Array.isArray(x)) {
    for (const item of x) pruneNonNullableNullsWithoutDefaults(schema?.items, item);
  } else if (isObject(x)) {
    for (const [key, value] of Object.entries(x)) {
      const s = fieldSchema(schema, key);
      if (isNonNullableNull(value, s) && s.default === undefined) delete x[key];
      else pruneNonNullableNullsWithoutDefaults(s, value);
    }
  }
}

/**
 * Fills each missing property that has a default, and each null one whose schema does not allow
 * null, with a deep copy of the default; then defaults every field, map value and list item
 * below, so defaults inside a default apply too. A null map value or list item whose schema does
 * not allow null gets that schema's default (stays null without one).
 */
export function applySchemaDefaults(schema: JSONSchemaProps, obj: JSONObject): void {
  defaultValue(schema, obj);
}

function defaultValue(s: JSONSchemaProps | undefined, x: unknown): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((item, i) => {
      if (isNonNullableNull(item, s.items)) x[i] = structuredClone(s.items.default ?? null);
      defaultValue(s.items, x[i]);
    });
  } else if (isObject(x)) {
    for (const [key, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (!Object.hasOwn(x, key) || isNonNullableNull(x[key], prop)) x[key] = structuredClone(prop.default);
    }
    const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const key of Object.keys(x)) {
      if (s.properties && Object.hasOwn(s.properties, key)) {
        defaultValue(s.properties[key], x[key]);
      } else if (additional) {
        if (isNonNullableNull(x[key], additional)) x[key] = structuredClone(additional.default ?? null);
        defaultValue(additional, x[key]);
      }
    }
  }
}
