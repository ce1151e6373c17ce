import type { JSONSchemaProps } from './json-schema-props';

/**
 * Old and new values of a custom resource matched node by node, as apiserver/pkg/cel/common's
 * CorrelatedObject matches them for transition rules and validation ratcheting: object fields by
 * name, items of `listType: map` lists by their list-map keys; items of other lists have no old
 * value.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** MapIsCorrelatable: an object's old fields are correlated by name unless its map type is one kube does not know (granular and atomic maps both are). */
export const mapIsCorrelatable = (s: JSONSchemaProps): boolean => {
  const mapType: string | undefined = s['x-kubernetes-map-type'];
  return mapType === undefined || mapType === 'granular' || mapType === 'atomic';
};

export const propertySchema = (s: JSONSchemaProps, key: string): JSONSchemaProps | undefined =>
  s.properties?.[key] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);

/** MakeMapList(...).Get: the old item of a `listType: map` list with the same key values as `item`. */
export function oldListItem(s: JSONSchemaProps, oldList: unknown, item: unknown): unknown {
  if (s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(oldList) || !isObject(item)) return undefined;
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  return oldList.find((old) => isObject(old) && keys.every((k) => jsonEqual(old[k], item[k])));
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** CachedDeepEqual: deep equality, where the items of a `listType: map` list are compared with the old items of the same keys. */
export function correlatedEqual(value: unknown, old: unknown, s: JSONSchemaProps | undefined): boolean {
  if (!s) return jsonEqual(value, old);
  if (Array.isArray(value) && Array.isArray(old)) {
    if (value.length !== old.length) return false;
    if (s['x-kubernetes-list-type'] !== 'map') return jsonEqual(value, old);
    return value.every((item) => {
      const before = oldListItem(s, old, item);
      return before !== undefined && correlatedEqual(item, before, s.items);
    });
  }
  if (isObject(value) && isObject(old)) {
    const keys = Object.keys(value);
    return keys.length === Object.keys(old).length && keys.every((k) => Object.hasOwn(old, k) && correlatedEqual(value[k], old[k], propertySchema(s, k)));
  }
  return jsonEqual(value, old);
}

/** A node whose old value is known. */
export interface Correlated {
  value: unknown;
  old: unknown;
  schema: JSONSchemaProps;
  equal?: boolean;
}

/**
 * Where a node stands for ratcheting (ratchetingOptions): its own correlation, or none and its
 * nearest correlated ancestor's. Its errors are ratcheted when that node is unchanged.
 */
export interface Ratcheting {
  current: Correlated | null;
  nearest: Correlated | null;
  root: boolean;
}

export const NO_RATCHETING: Ratcheting = { current: null, nearest: null, root: false };

export const ratchetingRoot = (value: unknown, old: unknown, schema: JSONSchemaProps): Ratcheting => ({
  current: { value, old, schema },
  nearest: null,
  root: true,
});

/** shouldRatchetError */
export function unchanged(r: Ratcheting): boolean {
  const node = r.current ?? r.nearest;
  if (!node) return false;
  node.equal ??= correlatedEqual(node.value, node.old, node.schema);
  return node.equal;
}

/** ratchetingOptions.key: apiVersion and kind are not ratcheted (old and new are read in one version). */
export function ratchetKey(r: Ratcheting, key: string): Ratcheting {
  const c = r.current;
  if (!c) return r;
  if (r.root && (key === 'apiVersion' || key === 'kind')) return NO_RATCHETING;
  const schema = propertySchema(c.schema, key);
  const { value, old } = c;
  const both = isObject(value) && isObject(old) && Object.hasOwn(value, key) && Object.hasOwn(old, key);
  return { current: both && schema ? { value: value[key], old: old[key], schema } : null, nearest: c, root: false };
}

/** ratchetingOptions.index */
export function ratchetIndex(r: Ratcheting, i: number): Ratcheting {
  const c = r.current;
  if (!c) return r;
  const item = Array.isArray(c.value) ? c.value[i] : undefined;
  const old = oldListItem(c.schema, c.old, item);
  return { current: old !== undefined && c.schema.items ? { value: item, old, schema: c.schema.items } : null, nearest: c, root: false };
}

/**
 * Whether a schema error at `path` (field.Path syntax: `spec.a[0][key]`) is ratcheted: the
 * nearest correlated node on its path is unchanged (ratchetingValueValidator.Validate). A
 * required field's error lies under the object that requires it, which it reaches this way too.
 */
export function ratchetedAt(root: Ratcheting, path: string): boolean {
  let r = root;
  for (const [, name, bracket] of path.matchAll(/\.?([^.[\]]+)|\[([^\]]*)\]/g)) {
    const value = r.current?.value;
    if (bracket !== undefined && Array.isArray(value) && /^\d+$/.test(bracket)) r = ratchetIndex(r, Number(bracket));
    else r = ratchetKey(r, name ?? bracket);
    if (!r.current) break;
  }
  return unchanged(r);
}
