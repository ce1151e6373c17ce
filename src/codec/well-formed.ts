import { setOwn } from '../api/types';

/**
 * Go strings hold UTF-8, so encoding/json (and sigs.k8s.io/yaml through it) decodes an escaped
 * surrogate that has no partner (`"\ud800"`) as U+FFFD. JSON.parse keeps it: a custom resource,
 * stored as JSON, would read it back as it came. Only a text that escapes a surrogate is walked.
 */
const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]|\\U0000[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function withGoStrings(text: string, value: unknown): unknown {
  return ESCAPED_SURROGATE.test(text) ? wellFormed(value) : value;
}

function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\ufffd');
  if (Array.isArray(value)) return value.map(wellFormed);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) setOwn(out, wellFormed(key) as string, wellFormed(v));
  return out;
}
