/**
 * managedFields' FieldsV1 trees decoded from Protobuf, shared between objects whose bytes are
 * equal. Objects made from one template by one manager own the same fields, so a cache of their
 * pods holds one tree instead of one each (the tree was about half of a cached pod). kube keeps
 * FieldsV1 as raw bytes per object; sharing decoded trees saves more where they repeat and lets
 * every encoder and the field manager keep reading plain objects.
 *
 * A shared tree is frozen: one reader changing it in place would change it for every object.
 */

/** Distinct trees remembered, the least recently decoded forgotten first. */
const SHARED_MAX = 1024;

/** By the raw bytes as a latin1 string (one char per byte, so equal keys are equal bytes). */
const shared = new Map<string, unknown>();

function deepFreeze(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The tree of FieldsV1's raw JSON bytes, the same frozen object for equal bytes. */
export function sharedFieldsV1(raw: Buffer): unknown {
  const key = raw.toString('latin1');
  let tree = shared.get(key);
  if (tree !== undefined) {
    // Map keeps insertion order: moving a hit to the end makes the first entry the least recent.
    shared.delete(key);
  } else {
    tree = deepFreeze(JSON.parse(raw.toString('utf8')));
    if (shared.size >= SHARED_MAX) shared.delete(shared.keys().next().value!);
  }
  shared.set(key, tree);
  return tree;
}
