import { isPlainObject } from './types';

const ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** encoding/json's Marshal of decoded JSON: keys sorted, HTML characters escaped. */
export function goJsonMarshal(value: unknown): string {
  return goJsonMarshalOf(value, () => true);
}

/**
 * encoding/json's Marshal of a document some of whose objects and arrays are Go maps and slices
 * (`isMap`: a map's keys sorted) and the rest json.RawMessage (written as they came, in their own
 * key order). What is raw holds nothing decoded: json-patch decodes a container only through its
 * parent, so a raw one is written whole by JSON.stringify, without a callback per value (a 5 MB
 * copied subtree took three times as long with one). Marshal and the Compact it runs over a
 * RawMessage both escape HTML characters.
 */
export function goJsonMarshalOf(value: unknown, isMap: (obj: object) => boolean): string {
  return (marshalOf(value, isMap) ?? '').replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c]);
}

/** JSON.stringify's text of one value (undefined for what it leaves out), maps with their keys sorted. */
function marshalOf(value: unknown, isMap: (obj: object) => boolean): string | undefined {
  if (typeof value !== 'object' || value === null || !isMap(value)) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => marshalOf(v, isMap) ?? 'null').join(',')}]`;
  if (!isPlainObject(value)) return JSON.stringify(value);
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const text = marshalOf(value[key], isMap);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
