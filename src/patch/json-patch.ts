import { applyPatch, JsonPatchError, type Operation } from 'fast-json-patch';
import { badRequest, StatusError } from '../api/errors';

/** What kube-apiserver answers when a well-formed patch cannot be applied (a failed test, a missing path). */
export function patchNotApplicable(): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

function parseOperations(patch: unknown): Operation[] {
  if (!Array.isArray(patch)) {
    throw badRequest(`json: cannot unmarshal ${patch === null ? 'null' : typeof patch} into Go value of type jsonpatch.Patch`);
  }
  for (const op of patch) {
    if (typeof op !== 'object' || op === null || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw badRequest('json: cannot unmarshal into Go value of type jsonpatch.Operation');
    }
  }
  return patch as Operation[];
}

/** RFC 6902. Nothing is changed unless every operation applies. */
export function applyJsonPatch(document: unknown, patch: unknown): unknown {
  const operations = parseOperations(patch);
  try {
    return applyPatch(structuredClone(document), operations, true, false).newDocument;
  } catch (err) {
    if (err instanceof JsonPatchError && err.name.startsWith('OPERATION_') && err.name !== 'OPERATION_PATH_UNRESOLVABLE' && err.name !== 'OPERATION_FROM_UNRESOLVABLE' && err.name !== 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX' && err.name !== 'OPERATION_VALUE_OUT_OF_BOUNDS') {
      throw badRequest(`invalid JSON patch operation: ${err.message.split('\n')[0]}`);
    }
    if (err instanceof JsonPatchError || err instanceof TypeError) throw patchNotApplicable();
    throw err;
  }
}
