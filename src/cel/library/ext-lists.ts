import { celList, CelScalar, isCelList, isCelUint, listType, type CelList } from '@bufbuild/cel';
import { spend } from '../cost';
import { celEquals, celLess, func, method, type Overload } from './typed-values';

/**
 * cel-go's lists extension at ListsVersion(3), which kube's base environment enables from 1.34
 * (ext/lists.go, cel-go v0.26): `slice`, `flatten`, `sort`, `sortBy` (a macro, cel/parse.ts,
 * calling `@sortByAssociatedKeys`), `reverse`, `distinct` and `lists.range`, with its error texts
 * and its runtime cost trackers (each replaces the call's own 1, which kapi's metering counts).
 */

const { INT, DYN } = CelScalar;
const LIST = listType(DYN);

/** The function kube's sortBy macro calls with the list and the keys it computed. */
export const SORT_BY_ASSOCIATED_KEYS = '@sortByAssociatedKeys';

const items = (list: CelList): unknown[] => [...(list as Iterable<unknown>)];
/** A list of values the evaluator gave (so already CEL values). */
const listOf = (values: unknown[]): CelList => celList(values as never);

/** trackAllocatingListCall: the result's size by a factor, the call and a list's creation; less the call kapi counts already. */
function spendAllocatingListCall(factor: number, size: number): void {
  spend(Math.floor(size * factor) + 10);
}

/** trackListSelfCompare: a worst-case quadratic pass over the list, strings and bytes also traversed. */
function spendSelfCompare(list: unknown[]): void {
  const textual = typeof list[0] === 'string' || list[0] instanceof Uint8Array;
  spendAllocatingListCall(textual ? 2.1 : 2, list.length * list.length);
}

const messageType = (v: unknown): string | undefined => (v as { desc?: { typeName?: string } } | null)?.desc?.typeName;

/**
 * The comparable type of a value (traits.Comparer: int, uint, double, bool, duration, timestamp,
 * string, bytes), or null. A JSON number list holds ints and doubles, which kube's schema types
 * alike, so both are numbers here.
 */
function comparableType(v: unknown): string | null {
  if (typeof v === 'bigint' || typeof v === 'number') return 'number';
  if (isCelUint(v)) return 'uint';
  if (typeof v === 'boolean' || typeof v === 'string') return typeof v;
  if (v instanceof Uint8Array) return 'bytes';
  const message = messageType(v);
  return message === 'google.protobuf.Duration' || message === 'google.protobuf.Timestamp' ? message : null;
}

/** sortListByAssociatedKeys: the list in the order of its keys (sort.Slice's; a stable sort here). */
function sortByKeys(list: unknown[], keys: unknown[]): CelList {
  if (list.length !== keys.length)
    throw new Error(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  if (list.length === 0) return listOf(list);
  const type = comparableType(keys[0]);
  if (type === null) throw new Error('list elements must be comparable');
  if (keys.some((k) => comparableType(k) !== type)) throw new Error('list elements must have the same type');
  const order = keys.map((_, i) => i).sort((i, j) => (celLess(keys[i], keys[j]) ? -1 : celLess(keys[j], keys[i]) ? 1 : 0));
  return listOf(order.map((i) => list[i]));
}

function slice(list: CelList, start: bigint, end: bigint): CelList {
  const all = items(list);
  if (start < 0n || end < 0n) throw new Error(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) throw new Error(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (BigInt(all.length) < end) throw new Error(`cannot slice(${start}, ${end}), list is length ${all.length}`);
  const out = all.slice(Number(start), Number(end));
  spendAllocatingListCall(1, out.length);
  return listOf(out);
}

/** flatten: nested lists spliced in, `depth` levels down. */
function flattenItems(list: unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw new Error('level must be non-negative');
  return list.flatMap((v) => (isCelList(v) && depth > 0n ? flattenItems(items(v), depth - 1n) : [v]));
}

function flatten(list: CelList, depth: bigint): CelList {
  const all = items(list);
  const out = flattenItems(all, depth);
  spendAllocatingListCall(Number(depth), all.length);
  return listOf(out);
}

function distinct(list: CelList): CelList {
  const all = items(list);
  spendSelfCompare(all);
  const unique: unknown[] = [];
  for (const v of all) if (!unique.some((u) => celEquals(v, u))) unique.push(v);
  return listOf(unique);
}

function range(n: bigint): CelList {
  const out: bigint[] = [];
  for (let i = 0n; i < n; i++) {
    out.push(i);
    // spent as the list grows, so a huge n stops at the cost limit instead of filling memory
    if (out.length % 1024 === 0) spend(1024);
  }
  spendAllocatingListCall(1, out.length % 1024);
  return listOf(out);
}

export const extListsLibrary: Overload[] = [
  method('slice', LIST, [INT, INT], LIST, slice),
  method('flatten', LIST, [], LIST, (list: CelList) => flatten(list, 1n)),
  method('flatten', LIST, [INT], LIST, flatten),
  method('sort', LIST, [], LIST, (list: CelList) => {
    const all = items(list);
    spendSelfCompare(all);
    return sortByKeys(all, all);
  }),
  method(SORT_BY_ASSOCIATED_KEYS, LIST, [LIST], LIST, (list: CelList, keys: CelList) => {
    const all = items(keys);
    spendSelfCompare(all);
    return sortByKeys(items(list), all);
  }),
  method('reverse', LIST, [], LIST, (list: CelList) => {
    const all = items(list);
    spendAllocatingListCall(1, all.length);
    return listOf(all.reverse());
  }),
  method('distinct', LIST, [], LIST, distinct),
  func('lists.range', [INT], LIST, range),
];
