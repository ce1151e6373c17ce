import { applyPatch, JsonPatchError, type Operation } from 'fast-json-patch';
import { badRequest, StatusError } from '../api/errors';

/** kube-apiserver's limit on the operations of one JSON patch. */
const MAX_JSON_PATCH_OPERATIONS = 10000;

/** What kube-apiserver answers when a well-formed patch cannot be applied (a failed test, a missing path). */
export function patchNotApplicable(): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** The JSON type names Go's decoder uses in "cannot unmarshal X into ..." errors. */
function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** jsonpatch.DecodePatch: only the JSON shape is checked here; bad operations fail when applied. */
function parseOperations(patch: unknown): Operation[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw badRequest(`json: cannot unmarshal ${goJsonKind(patch)} into Go value of type jsonpatch.Patch`);
  for (const op of patch) {
    if (op !== null && (typeof op !== 'object' || Array.isArray(op))) {
      throw badRequest(`json: cannot unmarshal ${goJsonKind(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`,
    );
  }
  return patch as Operation[];
}

/** RFC 6902. Nothing is changed unless every operation applies; any operation that fails is a 422. */
export function applyJsonPatch(document: unknown, patch: unknown): unknown {
  const operations = parseOperations(patch);
  try {
    return applyPatch(structuredClone(document), operations, true, false).newDocument;
  } catch (err) {
    // fast-json-patch refuses "__proto__" paths with a plain Error; Kubernetes finds no such path either.
    const banned = err instanceof Error && err.message.startsWith('JSON-Patch: modifying');
    if (err instanceof JsonPatchError || err instanceof TypeError || banned) throw patchNotApplicable();
    throw err;
  }
}
