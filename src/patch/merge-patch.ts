import { isPlainObject, setOwn } from '../api/types';
import { jsonClone } from '../api/json-clone';

/** RFC 7386: objects merge key by key, null deletes, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return jsonClone(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, applyMergePatch(Object.prototype.hasOwnProperty.call(result, key) ? result[key] : undefined, value));
  }
  return result;
}
