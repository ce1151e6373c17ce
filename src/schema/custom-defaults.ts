import type { JSONSchemaProps } from './json-schema-props';
import { jsonClone } from '../api/json-clone';

/**
 * Structural defaulting of custom resources, as apiextensions-apiserver's
 * `pkg/apiserver/schema/defaulting` does it, after decoding has pruned unknown fields and the nulls
 * no schema allows (typed-decode.ts); it changes the object in place. Defaults only come from `properties`,
 * `additionalProperties` and `items`: structural schemas allow none under allOf/anyOf/oneOf/not.
 */

type JSONObject = Record<string, unknown>;

const isObject = (v: unknown): v is JSONObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const isNonNullableNull = (v: unknown, s: JSONSchemaProps | undefined): s is JSONSchemaProps => v === null && !!s && !s.nullable;

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
      if (isNonNullableNull(item, s.items)) x[i] = jsonClone(s.items.default ?? null);
      defaultValue(s.items, x[i]);
    });
  } else if (isObject(x)) {
    for (const [key, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (!Object.hasOwn(x, key) || isNonNullableNull(x[key], prop)) x[key] = jsonClone(prop.default);
    }
    const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const key of Object.keys(x)) {
      if (s.properties && Object.hasOwn(s.properties, key)) {
        defaultValue(s.properties[key], x[key]);
      } else if (additional) {
        if (isNonNullableNull(x[key], additional)) x[key] = jsonClone(additional.default ?? null);
        defaultValue(additional, x[key]);
      }
    }
  }
}
