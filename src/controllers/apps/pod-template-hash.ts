import type { PodTemplateSpec } from '../../generated/types/core/v1';
import { compareGoStrings } from '../../api/go-string-order';

/** The label (and selector key) that ties a Deployment's ReplicaSet and its pods to one template. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** rand.SafeEncodeString's alphabet: no vowels, no 0/1/3, so a hash never spells a word. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON with object keys sorted, so equal templates hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => compareGoStrings(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function fnv32a(bytes: Uint8Array, hash = FNV_OFFSET): number {
  let h = hash;
  for (const b of bytes) h = Math.imul(h ^ b, FNV_PRIME) >>> 0;
  return h;
}

/**
 * controller.ComputeHash: fnv32a over the template (then the collision count's four bytes,
 * little-endian), its decimal digits spelled in the safe alphabet. kube hashes Go's spew dump of
 * the template; we hash canonical JSON, so values differ from kube's (docs/divergences.md).
 */
export function computeHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  let hash = fnv32a(new TextEncoder().encode(canonical(template ?? {})));
  if (collisionCount !== undefined) {
    const count = new Uint8Array(4);
    new DataView(count.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv32a(count, hash);
  }
  return [...String(hash)].map((digit) => SAFE_ALPHABET[digit.charCodeAt(0) % SAFE_ALPHABET.length]).join('');
}
