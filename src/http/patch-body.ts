import { badRequest } from '../api/errors';
import { goQuote } from '../api/field-errors';
import { isPlainObject } from '../api/types';
import { runWalk } from '../api/loop-slices';
import { goJsonSyntaxErrorWalk } from '../codec/go-json-syntax';
import { jsonNestingDepthInSlices, MAX_NESTING_DEPTH } from '../codec/json';
import { jsonTypeName } from './decode-object';
import type { FieldValidation } from './query';

/** The patch types whose body is JSON decoded against the stored object (not an apply configuration). */
export type JsonBodyPatch = 'json' | 'merge' | 'strategic';

const GO_MAP = 'Go value of type map[string]interface {}';
/** json-patch v4's ErrBadJSONPatch, which MergePatch returns for a body that is no object or array. */
const BAD_MERGE_PATCH = 'Invalid JSON Patch';

function cannotUnmarshal(value: unknown, into: string): string {
  return `json: cannot unmarshal ${jsonTypeName(value)} into ${into}`;
}

/**
 * kjson.UnmarshalStrict of a JSON patch into jsonPatchOp values: the first value of a wrong type
 * in the document (encoding/json keeps decoding past one and reports the first).
 */
function jsonPatchOpTypeError(patch: unknown): string | undefined {
  if (patch === null) return undefined;
  if (!Array.isArray(patch)) return cannotUnmarshal(patch, 'Go value of type []handlers.jsonPatchOp');
  for (const op of patch) {
    if (op === null) continue;
    if (!isPlainObject(op)) return cannotUnmarshal(op, 'Go value of type handlers.jsonPatchOp');
    for (const [key, value] of Object.entries(op)) {
      const stringField = key === 'op' || key === 'path' || key === 'from';
      if (stringField && value !== null && typeof value !== 'string') return cannotUnmarshal(value, `Go struct field jsonPatchOp.${key} of type string`);
    }
  }
  return undefined;
}

const OPERATION_FIELDS = new Set(['op', 'path', 'from', 'value']);

/**
 * kjson.UnmarshalStrict's strict errors of a JSON patch decoded into jsonPatchOp values, operation
 * by operation: its duplicate fields (`duplicates`, found in the text), then the fields
 * jsonPatchOp lacks, matched case-sensitively ("Op" is unknown), each at its operation's index.
 */
export function jsonPatchStrictErrors(patch: unknown, duplicates: string[]): string[] {
  if (!Array.isArray(patch)) return duplicates;
  const atOperation = (error: string): number => Number(/"\[(\d+)\]/.exec(error)?.[1] ?? -1);
  const errors = duplicates.filter((e) => atOperation(e) < 0);
  patch.forEach((op, i) => {
    errors.push(...duplicates.filter((e) => atOperation(e) === i));
    if (!isPlainObject(op)) return;
    for (const key of Object.keys(op)) if (!OPERATION_FIELDS.has(key)) errors.push(`unknown field ${goQuote(`[${i}].${key}`)}`);
  });
  return errors;
}

/** JSON.parse of the body; a syntax error, in encoding/json's words, is reported as `describe` words it. */
function parsed(text: string, describe: (message: string) => string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(describe(runWalk(goJsonSyntaxErrorWalk(Buffer.from(text))) ?? (err as Error).message));
  }
}

/**
 * The body of a JSON, merge or strategic merge patch, decoded as kube's patchers decode it
 * (jsonPatcher.applyJSPatch, strategicPatchObject): under fieldValidation Warn or Strict a JSON or
 * merge patch is first strictly decoded into its Go shape, whose errors are prefixed "error decoding
 * patch"; then json-patch v4 (DecodePatch, MergePatch) or the strategic patch's map decode reads it.
 * A merge patch of null, or under Ignore of a scalar, is MergePatch's ErrBadJSONPatch; a strategic
 * patch of null is an empty map, a patch that changes nothing.
 */
export async function decodePatchBody(text: string, type: JsonBodyPatch, validation: FieldValidation, slice: () => Promise<void>): Promise<unknown> {
  if ((await jsonNestingDepthInSlices(text, slice)) > MAX_NESTING_DEPTH) throw badRequest(`exceeded max depth of ${MAX_NESTING_DEPTH}`);
  const strict = validation !== 'Ignore';
  const strictly = (message: string): string => `error decoding patch: ${message}`;
  switch (type) {
    case 'json': {
      const patch = parsed(text, strict ? strictly : (m) => m);
      const typeError = strict ? jsonPatchOpTypeError(patch) : undefined;
      if (typeError !== undefined) throw badRequest(strictly(typeError));
      return patch;
    }
    case 'merge': {
      const patch = parsed(text, strict ? strictly : () => BAD_MERGE_PATCH);
      if (strict && patch !== null && !isPlainObject(patch)) throw badRequest(strictly(cannotUnmarshal(patch, GO_MAP)));
      if (typeof patch !== 'object' || patch === null) throw badRequest(BAD_MERGE_PATCH);
      return patch;
    }
    case 'strategic': {
      const patch = parsed(text, (m) => m);
      if (patch === null) return {};
      if (!isPlainObject(patch)) throw badRequest(cannotUnmarshal(patch, GO_MAP));
      return patch;
    }
  }
}
