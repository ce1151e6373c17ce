import { badRequest, notAStatus, type StatusError } from '../api/errors';
import { isPlainObject } from '../api/types';
import { goFormatValue } from './go-value-format';
import { patchNotApplicable } from './json-patch';

/**
 * strategicpatch's errors as kube-apiserver answers them (interpretStrategicMergePatchError): the
 * malformed-directive sentinels of package mergepatch are a 400, lists of lists a 422 without their
 * text, and every other error, a missing merge key or an unknown `$patch` among them, is no Status:
 * ErrorToAPIStatus's 500 with the error's text.
 */
export const smpErrors = {
  badRetainKeys: (): StatusError => badRequest('invalid patch format of retainKeys'),
  badSetElementOrder: (): StatusError => badRequest('invalid patch format of setElementOrder list'),
  badPrimitiveList: (): StatusError => badRequest('invalid patch format of primitive list'),
  noListOfLists: (): StatusError => patchNotApplicable(),
  noMergeKey: (item: Record<string, unknown>, mergeKey: string): StatusError =>
    notAStatus(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`),
  badPatchType: (directive: unknown, item: Record<string, unknown>): StatusError =>
    notAStatus(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(item)}`),
  mergeDirectiveInList: (): StatusError => notAStatus('merging lists cannot yet be specified in the patch'),
  /** mergepatch.ErrBadArgType where a list was expected. */
  notAList: (actual: unknown): StatusError => notAStatus(`expected a []interface {}, but received a ${goTypeName(actual)}`),
  /** mergepatch.ErrBadArgType where a map was expected. */
  notAMap: (actual: unknown): StatusError => notAStatus(`expected a map[string]interface {}, but received a ${goTypeName(actual)}`),
  mixedList: (original: unknown[], patch: unknown[]): StatusError => notAStatus(`list element types are not identical: ${goFormat([original, patch])}`),
  orderMismatch: (patch: unknown[], order: unknown[]): StatusError =>
    notAStatus(`The order in patch list:\n${goFormat(patch)}\n doesn't match $setElementOrder list:\n${goFormat(order)}\n`),
};

/** Go's %v for a value the patch's decode made (integers as int64), as strategicpatch errors print it. */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(value[k])}`).join(' ')}]`;
  }
  if (typeof value === 'number' && !Number.isInteger(value)) return goFormatValue(value);
  return String(value);
}

/**
 * The Go type of a value the patch's decode (UnmarshalCaseSensitivePreserveInts) made, as reflect
 * names it; a number without a fraction is read as an int64.
 */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isPlainObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}
