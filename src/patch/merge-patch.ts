import { isPlainObject, setOwn } from '../api/types';
import { jsonClone } from '../api/json-clone';
import type { V4Decoded } from './v4-bytes';

/**
 * RFC 7386 as json-patch v4's MergePatch applies it under kube-apiserver: objects merge key by
 * key, null deletes, anything else replaces. `decoded` collects the containers MergePatch decodes.
 */
export function applyMergePatch(target: unknown, patch: unknown, decoded: V4Decoded = new WeakSet()): unknown {
  // doMergePatch: a patch that is no object replaces the document, an array pruned as pruneAryNulls does
  if (Array.isArray(patch)) return pruned(patch, decoded);
  if (!isPlainObject(patch)) return jsonClone(patch);
  return merged(isPlainObject(target) ? target : {}, patch, decoded);
}

/** mergeDocs: a value replacing an object is kept as sent (merge), one replacing anything else is pruned of nulls. */
function merged(target: Record<string, unknown>, patch: Record<string, unknown>, decoded: V4Decoded): Record<string, unknown> {
  const result = { ...target };
  decoded.add(result);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = Object.prototype.hasOwnProperty.call(result, key) ? result[key] : undefined;
    if (!isPlainObject(current)) setOwn(result, key, pruned(value, decoded));
    else setOwn(result, key, isPlainObject(value) ? merged(current, value, decoded) : jsonClone(value));
  }
  return result;
}

/** pruneNulls: a copy without the null members of its objects at any depth (an array keeps its nulls), every container decoded. */
function pruned(value: unknown, decoded: V4Decoded): unknown {
  if (typeof value !== 'object' || value === null) return value;
  let out: unknown[] | Record<string, unknown>;
  if (Array.isArray(value)) out = value.map((v) => pruned(v, decoded));
  else {
    const obj: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) setOwn(obj, k, pruned(v, decoded));
    out = obj;
  }
  decoded.add(out);
  return out;
}
