import { isPlainObject } from './types';

const ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** encoding/json's Marshal of decoded JSON: keys sorted, HTML characters escaped. */
export function goJsonMarshal(value: unknown): string {
  return goJsonMarshalOf(value, () => true);
}

/**
 * encoding/json's Marshal of a document some of whose objects are Go maps (`isMap`: their keys
 * sorted) and the rest json.RawMessage (written as they came, in their own key order). Marshal
 * and the Compact it runs over a RawMessage both escape HTML characters.
 */
export function goJsonMarshalOf(value: unknown, isMap: (obj: object) => boolean): string {
  const json = JSON.stringify(value, (_key, v: unknown) =>
    isPlainObject(v) && isMap(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
  return json.replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c]);
}
