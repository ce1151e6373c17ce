import { applyOperation, getValueByPointer, JsonPatchError, validator, type Operation } from 'fast-json-patch';
import { badRequest, StatusError } from '../api/errors';
import { runWalk, runWalkInSlices, type Walk } from '../api/loop-slices';
import { jsonClone } from '../api/json-clone';
import { asV4Reads, decodedBy, V4TestFailed } from './json-patch-v4';
import { v4PatchedJson, type V4Decoded } from './v4-bytes';

/** kube-apiserver's limit on the operations of one JSON patch. */
const MAX_JSON_PATCH_OPERATIONS = 10000;
/** kube-apiserver's --json-patch-max-copy-bytes default (JSONPatchMaxCopyBytes): what all `copy` operations of a patch may add together. */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

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

/**
 * A `copy` as the `add` of its source's JSON, and that JSON's size as json-patch's deepCopy counts
 * it: the source is serialised once, where counting it and then fast-json-patch's clone (stringify
 * and parse) serialised it twice. The copy is what deepCopy makes, the bytes of the source as json-patch
 * writes it, not yet decoded. A source that is absent is left to the copy, which then fails.
 */
function copyAsAdd(document: unknown, operation: Operation & { op: 'copy' }, decoded: V4Decoded): { bytes: number; operation: Operation } {
  let value: unknown;
  try {
    value = getValueByPointer(document, operation.from);
  } catch {
    return { bytes: 0, operation };
  }
  if (value === undefined) return { bytes: 0, operation };
  const json = v4PatchedJson(value, decoded);
  // a string or number is its own copy: only its size needs the JSON
  const copy = typeof value === 'object' && value !== null ? JSON.parse(json) : value;
  return { bytes: Buffer.byteLength(json), operation: { op: 'add', path: operation.path, value: copy } };
}

/**
 * fast-json-patch's own validator, except that a `move` or `copy` looks its source up in place:
 * the stock one tries it on a deep clone of the whole document, so that every such operation of a
 * 10,000-operation patch would copy the object once more (issue 25: a patch must not stall the loop).
 */
function validateOperation(operation: Operation, index: number, document: unknown, existingPath: string): void {
  if (operation.op !== 'move' && operation.op !== 'copy') return validator(operation, index, document, existingPath);
  validator(operation, index);
  try {
    applyOperation(document, { op: '_get', path: operation.from, value: undefined }, true, true);
  } catch (err) {
    if (err instanceof JsonPatchError && err.name === 'OPERATION_PATH_UNRESOLVABLE') {
      throw new JsonPatchError('Cannot perform the operation from a path that does not exist', 'OPERATION_FROM_UNRESOLVABLE', index, operation, document);
    }
    if (!(err instanceof JsonPatchError)) throw err;
  }
}

/**
 * What json-patch (v4, under kube-apiserver) cannot locate: the document root as the target of
 * anything but `test` and `replace`, or as the source of a move or copy (findObject has no container for ""),
 * and a move into what it moves (its destination's parent is gone once the source is removed).
 */
function unlocatable(operation: Operation): boolean {
  if (operation.op === 'test') return false;
  if (operation.path === '') return true;
  if (operation.op !== 'move' && operation.op !== 'copy') return false;
  return operation.from === '' || (operation.op === 'move' && typeof operation.path === 'string' && operation.path.startsWith(`${operation.from}/`));
}

/**
 * RFC 6902. Nothing is changed unless every operation applies; any operation that fails is a 422.
 * As json-patch under kube-apiserver (AccumulatedCopySizeLimit), the bytes that `copy` operations
 * add are counted before each copy, and a patch whose copies pass the limit fails with the same
 * 422: a few operations that copy a value into itself would otherwise double it each time.
 */
export function applyJsonPatch(document: unknown, patch: unknown): unknown {
  return runWalk(operationsApplied(document, patch, new WeakSet()));
}

/**
 * applyJsonPatch for a request: up to 10,000 operations, each as large as the body, yield between
 * them once a slice is spent. `decoded` collects the containers json-patch decodes.
 */
export function applyJsonPatchInSlices(document: unknown, patch: unknown, slice: () => Promise<void>, decoded: V4Decoded): Promise<unknown> {
  return runWalkInSlices(operationsApplied(document, patch, decoded), slice);
}

/**
 * Patch.replace at the root: the document becomes the value, decoded (lazyNode.tryDoc, tryAry); a
 * value that is not an object or array, null included, fails as any operation that does not apply.
 */
function replacedRoot(value: unknown, decoded: V4Decoded): unknown {
  if (typeof value !== 'object' || value === null) throw patchNotApplicable();
  const root = jsonClone(value);
  decoded.add(root);
  return root;
}

function* operationsApplied(document: unknown, patch: unknown, decoded: V4Decoded): Walk<unknown> {
  const operations = parseOperations(patch);
  let result = jsonClone(document);
  if (typeof result === 'object' && result !== null) decoded.add(result);
  let copied = 0;
  try {
    for (const [index, given] of operations.entries()) {
      // A null operation is an empty map to json-patch v4, of Kind "unknown": Patch.Apply's "Unexpected kind"
      if ((given as Operation | null) === null) throw patchNotApplicable();
      if (given.op === 'replace' && given.path === '') {
        result = replacedRoot(given.value, decoded);
        yield;
        continue;
      }
      if (unlocatable(given)) throw patchNotApplicable();
      decodedBy(result, given, 'before', decoded);
      const operation = asV4Reads(result, given);
      if (operation === null) {
        yield;
        continue;
      }
      let applied = operation;
      // Patch.Apply decodes each value from the patch's bytes: the document never shares the
      // patch's objects, which the typed decode of one attempt would change for the next.
      if (operation.op === 'add' || operation.op === 'replace') applied = { ...operation, value: jsonClone(operation.value) };
      if (operation.op === 'copy') {
        const copy = copyAsAdd(result, operation, decoded);
        copied += copy.bytes;
        if (copied > MAX_JSON_PATCH_COPY_BYTES) throw patchNotApplicable();
        applied = copy.operation;
      }
      result = applyOperation(result, applied, validateOperation, true, true, index).newDocument;
      decodedBy(result, operation, 'after', decoded);
      yield;
    }
    return result;
  } catch (err) {
    // fast-json-patch refuses "__proto__" paths with a plain Error; Kubernetes finds no such path either.
    const banned = err instanceof Error && err.message.startsWith('JSON-Patch: modifying');
    if (err instanceof JsonPatchError || err instanceof TypeError || err instanceof V4TestFailed || banned) throw patchNotApplicable();
    throw err;
  }
}
