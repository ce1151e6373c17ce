import { CelScalar, isCelList, isCelMap, listType } from '@bufbuild/cel';
import { func, TYPED, type Overload } from './typed-values';

/**
 * The functions of cel-go's two-variable comprehensions (ext.TwoVarComprehensions, kube's base
 * environment from 1.32): `cel.@mapInsert`, which transformMap and transformMapEntry steps call,
 * and the (key, value) pairs cel/plan-form.ts iterates in place of a two-variable loop.
 */

const { DYN } = CelScalar;

export const ITERATION_PAIRS = '@iteration_pairs';

/** Go's %v of a map key. */
const keyText = (key: unknown): string => String(key);

/** types.InsertMapKeyValue: a copy of the map with one more entry; an error when the key is there. */
function insert(map: Map<unknown, unknown>, key: unknown, value: unknown): Map<unknown, unknown> {
  if (map.has(key)) throw new Error(`insert failed: key ${keyText(key)} already exists`);
  return map.set(key, value);
}

const copy = (map: unknown): Map<unknown, unknown> => new Map(isCelMap(map) ? map.entries() : []);

/** A list's (index, element) pairs, a map's (key, value) pairs: the two variables of each iteration. */
function iterationPairs(range: unknown): unknown[][] {
  if (isCelList(range)) return [...range].map((value, i) => [BigInt(i), value]);
  if (isCelMap(range)) return [...range.entries()].map(([key, value]) => [key, value]);
  throw new Error(`cannot iterate over ${typeof range}`);
}

export const comprehensionsLibrary: Overload[] = [
  func('cel.@mapInsert', [TYPED, DYN, DYN], TYPED, (map: unknown, key: unknown, value: unknown) => insert(copy(map), key, value)),
  func('cel.@mapInsert', [TYPED, TYPED], TYPED, (map: unknown, update: unknown) => {
    const out = copy(map);
    for (const [key, value] of copy(update)) insert(out, key, value);
    return out;
  }),
  func(ITERATION_PAIRS, [DYN], listType(DYN), iterationPairs),
];
