import type { ServerResponse } from 'node:http';
import { badRequest } from '../api/errors';
import { runWalkInSlices } from '../api/loop-slices';
import { jsonDuplicateFields, jsonDuplicateFieldsWalk, yamlDuplicateKeys } from '../codec/duplicate-keys';
import type { Encoding } from '../codec/negotiate';
import type { FieldValidation } from './query';
import { addWarning } from './warnings';
import { goQuote } from '../api/field-errors';

/**
 * fieldValidation: unknown and duplicate fields are always dropped; Ignore says nothing, Warn adds a
 * Warning per field, Strict refuses the request with all of them.
 */

/**
 * Duplicate keys in a request body, worded as kube-apiserver's strict decoders word them. A body
 * that does not even parse has none to report: its decoding error is what the client gets.
 */
export function duplicateFieldErrors(body: Buffer, encoding: Encoding): string[] {
  try {
    return duplicatesIn(body, encoding);
  } catch {
    return [];
  }
}

/** duplicateFieldErrors of a JSON body's text for a request: the scan yields between slices. */
export async function jsonDuplicateFieldErrorsInSlices(text: string, slice: () => Promise<void>): Promise<string[]> {
  try {
    return (await runWalkInSlices(jsonDuplicateFieldsWalk(text), slice)).map(duplicateField);
  } catch {
    return [];
  }
}

const duplicateField = (path: string): string => `duplicate field ${goQuote(path)}`;

function duplicatesIn(body: Buffer, encoding: Encoding): string[] {
  switch (encoding) {
    case 'json':
      return jsonDuplicateFields(body.toString('utf8')).map(duplicateField);
    case 'yaml':
      return yamlDuplicateKeys(body.toString('utf8')).map((d) => `line ${d.line}: key ${goQuote(d.key)} already set in map`);
    default:
      return [];
  }
}

export function unknownFieldErrors(paths: string[]): string[] {
  return paths.map((path) => `unknown field ${goQuote(path)}`);
}

/** runtime.NewStrictDecodingError's message. */
export function strictDecodingError(errors: string[]): string {
  return `strict decoding error: ${errors.join(', ')}`;
}

export function enforceFieldValidation(res: ServerResponse, validation: FieldValidation, errors: string[]): void {
  if (errors.length === 0 || validation === 'Ignore') return;
  if (validation === 'Strict') throw badRequest(strictDecodingError(errors));
  for (const e of errors) addWarning(res, e);
}
