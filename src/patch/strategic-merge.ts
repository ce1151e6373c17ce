import { badRequest } from '../api/errors';
import { isPlainObject, setOwn } from '../api/types';

/** How one field merges: its patch strategies, merge key, and the schema of what it holds. */
export interface FieldPatchMeta {
  /** From the patchStrategy tag: "merge", "replace", "retainKeys". */
  strategies: string[];
  mergeKey?: string;
  /** The object schema of the field's value (or of a list's items); null when free-form. */
  schema: PatchSchema | null;
}

export interface PatchSchema {
  field(name: string): FieldPatchMeta | null;
}

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/';

type Obj = Record<string, unknown>;

const has = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Removes directives (and nulls) from a value that is taken whole because the original lacks it. */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.filter((v) => !(isPlainObject(v) && v[PATCH] === 'delete')).map((v) => clean(v));
  }
  if (!isPlainObject(value)) return value;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === PATCH || k === RETAIN_KEYS || k.startsWith(SET_ORDER) || k.startsWith(DELETE_FROM_PRIMITIVE) || v === null) continue;
    setOwn(out, k, clean(v));
  }
  return out;
}

function sameKey(a: unknown, b: unknown, mergeKey: string): boolean {
  return isPlainObject(a) && isPlainObject(b) && has(a, mergeKey) && a[mergeKey] === b[mergeKey];
}

function keyOf(v: unknown, mergeKey: string | undefined): unknown {
  return mergeKey && isPlainObject(v) ? v[mergeKey] : v;
}

/** Orders a merged list: what $setElementOrder names comes first, in that order, then the rest as they were. */
function applyOrder(list: unknown[], order: unknown[] | undefined, mergeKey: string | undefined): unknown[] {
  if (!order) return list;
  const keys = order.map((o) => keyOf(o, mergeKey));
  const listed: unknown[] = [];
  for (const k of keys) {
    const found = list.find((v) => keyOf(v, mergeKey) === k);
    if (found !== undefined && !listed.includes(found)) listed.push(found);
  }
  return [...listed, ...list.filter((v) => !listed.includes(v))];
}

function mergeList(original: unknown[], patch: unknown[], meta: FieldPatchMeta | null, order: unknown[] | undefined): unknown[] {
  if (!meta?.strategies.includes('merge')) return clean(patch) as unknown[];
  const mergeKey = meta.mergeKey;
  const isMaps = [...original, ...patch].some(isPlainObject);
  if (!isMaps) {
    const merged = [...original];
    for (const v of patch) if (!merged.includes(v)) merged.push(v);
    return applyOrder(merged, order, undefined);
  }
  if (!mergeKey) throw badRequest('cannot merge lists without merge key');
  if (patch.some((p) => isPlainObject(p) && p[PATCH] === 'replace')) {
    return clean(patch.filter((p) => !(isPlainObject(p) && p[PATCH] === 'replace'))) as unknown[];
  }
  let merged = [...original];
  for (const p of patch) {
    if (!isPlainObject(p)) throw badRequest(`unable to find api field in struct for the merge key ${mergeKey}`);
    if (!has(p, mergeKey)) throw badRequest(`map: ${JSON.stringify(p)} does not contain declared merge key: ${mergeKey}`);
    const index = merged.findIndex((o) => sameKey(o, p, mergeKey));
    if (p[PATCH] === 'delete') {
      if (index >= 0) merged = merged.filter((_, i) => i !== index);
      continue;
    }
    if (index >= 0) merged[index] = mergeObject(merged[index] as Obj, p, meta.schema);
    else merged.push(clean(p));
  }
  return applyOrder(merged, order, mergeKey);
}

function mergeValue(original: unknown, patch: unknown, meta: FieldPatchMeta | null, order: unknown[] | undefined): unknown {
  if (isPlainObject(original) && isPlainObject(patch)) {
    if (meta?.strategies.includes('replace')) return clean(patch);
    return mergeObject(original, patch, meta?.schema ?? null);
  }
  if (Array.isArray(original) && Array.isArray(patch)) return mergeList(original, patch, meta, order);
  return clean(patch);
}

/** Applies a strategic merge patch to an object, per the schema's list and map semantics. */
export function mergeObject(original: Obj, patch: Obj, schema: PatchSchema | null): Obj {
  const directive = patch[PATCH];
  if (directive === 'replace') return clean(patch) as Obj;
  if (directive === 'delete') return {};
  if (directive !== undefined && directive !== 'merge') throw badRequest(`Unknown patch type: ${String(directive)}`);
  const result: Obj = { ...original };
  const retain = patch[RETAIN_KEYS];
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw badRequest('$retainKeys must be a list');
    for (const k of Object.keys(result)) if (!retain.includes(k) && !has(patch, k)) delete result[k];
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === PATCH || key === RETAIN_KEYS || key.startsWith(SET_ORDER)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
      const target = key.slice(DELETE_FROM_PRIMITIVE.length);
      if (Array.isArray(value) && Array.isArray(result[target])) {
        setOwn(result, target, (result[target] as unknown[]).filter((v) => !value.includes(v)));
      }
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const order = patch[`${SET_ORDER}${key}`] as unknown[] | undefined;
    const meta = schema?.field(key) ?? null;
    const current = has(result, key) ? result[key] : undefined;
    setOwn(result, key, current === undefined ? clean(value) : mergeValue(current, value, meta, order));
  }
  // An order directive may name a list the patch does not otherwise touch.
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const target = key.slice(SET_ORDER.length);
    if (has(patch, target) || !Array.isArray(result[target])) continue;
    setOwn(result, target, applyOrder(result[target] as unknown[], patch[key] as unknown[], schema?.field(target)?.mergeKey));
  }
  return result;
}

export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: PatchSchema | null): unknown {
  if (!isPlainObject(patch)) throw badRequest('json: cannot unmarshal into Go value of type map[string]interface {}');
  return mergeObject(isPlainObject(original) ? original : {}, patch, schema);
}
