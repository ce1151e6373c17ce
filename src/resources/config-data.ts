import { field, type FieldErrorList } from '../api/field-errors';
import { isPlainObject, type KubeObject } from '../api/types';

/** Rules ConfigMaps and Secrets share: key syntax, total size, immutability. */

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
export const MAX_CONFIG_BYTES = 1024 * 1024;

export function isConfigKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key)) {
    errs.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export function mapOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** IsConfigMapKey's errors for one key of the map at `path`, at field.NewPath(path).Key(key): data[key]. */
export function keyErrors(path: string, key: string): FieldErrorList {
  return isConfigKey(key).map((msg) => field.invalid(`${path}[${key}]`, key, msg));
}

export function validateKeys(data: Record<string, unknown>, path: string): FieldErrorList {
  return Object.keys(data).flatMap((key) => keyErrors(path, key));
}

/** An object marked immutable keeps its data, and stays immutable. */
export function validateImmutable(next: KubeObject, prev: KubeObject, dataFields: string[]): FieldErrorList {
  if (prev.immutable !== true) return [];
  const errs: FieldErrorList = [];
  if (next.immutable !== true) errs.push(field.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of dataFields) {
    if (JSON.stringify(mapOf(next[f])) !== JSON.stringify(mapOf(prev[f]))) errs.push(field.forbidden(f, 'field is immutable when `immutable` is set'));
  }
  return errs;
}
