import { isPlainObject } from './types';

/**
 * Loose readers of decoded JSON for strategies and printers: a value of another shape reads as
 * empty, as an unset field reads as its zero value in Go; validation reports the shape itself.
 */

export function objectOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

export function objectsIn(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

export function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function stringsIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
