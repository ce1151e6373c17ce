/** encoding/json's Marshal of decoded JSON: keys sorted, HTML characters escaped. */
export function goJsonMarshal(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (typeof v !== 'object' || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sorted((v as Record<string, unknown>)[k]);
    return out;
  };
  const escapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };
  return JSON.stringify(sorted(value)).replace(/[<>&\u2028\u2029]/g, (c) => escapes[c]);
}
