import { badRequest } from '../api/errors';
import { runWalk, runWalkInSlices, type Walk } from '../api/loop-slices';
import { isPlainObject, setOwn } from '../api/types';
import { goTypeName, smpErrors } from './strategic-merge-errors';

/** How one field merges: its patch strategies, merge key, and the schema of what it holds. */
export interface FieldPatchMeta {
  /** From the patchStrategy tag: "merge", "replace", "retainKeys". */
  strategies: string[];
  mergeKey?: string;
  /** The object schema of the field's value (or of a list's items); null when free-form. */
  schema: PatchSchema | null;
}

export interface PatchSchema {
  field(name: string): FieldPatchMeta | null;
}

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList';

type Obj = Record<string, unknown>;

const has = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Removes directives (and nulls) from a value a merged list or a `replace` takes whole. */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.filter((v) => !(isPlainObject(v) && v[PATCH] === 'delete')).map((v) => clean(v));
  }
  if (!isPlainObject(value)) return value;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === PATCH || k === RETAIN_KEYS || k.startsWith(SET_ORDER) || k.startsWith(DELETE_FROM_PRIMITIVE) || v === null) continue;
    setOwn(out, k, clean(v));
  }
  return out;
}

/**
 * removeDirectives after discardNullValuesFromPatch: a value taken whole because the original
 * lacks it (or holds another type), without null members. A map holding `$patch` is no value at
 * all (undefined), left out of a list or of its map. The other directive keys are left out too,
 * where kube keeps them for its decode to drop as unknown fields.
 */
function withoutDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDirectives).filter((v) => v !== undefined);
  if (!isPlainObject(value)) return value;
  if (has(value, PATCH)) return undefined;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === RETAIN_KEYS || k.startsWith(SET_ORDER) || k.startsWith(DELETE_FROM_PRIMITIVE) || v === null) continue;
    const kept = withoutDirectives(v);
    if (kept !== undefined) setOwn(out, k, kept);
  }
  return out;
}

/** extractKey: the field a directive key names, if the key is the prefix, a slash, then the field. */
function directiveTarget(key: string, prefix: string): string | undefined {
  const slash = key.indexOf('/');
  return slash >= 0 && key.slice(0, slash) === prefix ? key.slice(slash + 1) : undefined;
}

/** sliceElementType: the one Go type the items of both lists share; a list of lists, or of mixed types, is refused. */
function elementType(original: unknown[], patch: unknown[]): string | undefined {
  let first: string | undefined;
  for (const list of [original, patch]) {
    for (const item of list) {
      const type = goTypeName(item);
      if (first === undefined) {
        if (type === '[]interface {}') throw smpErrors.noListOfLists();
        first = type;
      } else if (type !== first) throw smpErrors.mixedList(original, patch);
    }
  }
  return first;
}

/** validateMergeKeyInLists: every item is a map that has the merge key. */
function checkMergeKeys(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isPlainObject(item)) throw smpErrors.notAMap(item);
      if (!has(item, mergeKey)) throw smpErrors.noMergeKey(item, mergeKey);
    }
  }
}

/**
 * validatePatchWithSetOrderList: the patch list's items (but those it deletes) come in the order
 * the $setElementOrder list gives them.
 */
function checkPatchOrder(patchList: unknown[], order: unknown[], mergeKey: string | undefined): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey) {
    for (const item of patchList) if (!isPlainObject(item)) throw smpErrors.notAMap(item);
    items = patchList.filter((item) => (item as Obj)[PATCH] !== 'delete');
  }
  const sameKey = (item: unknown, ordered: unknown): boolean => {
    if (!mergeKey) return item === ordered;
    for (const m of [item, ordered]) {
      if (!isPlainObject(m)) throw smpErrors.notAMap(m);
      if (!has(m, mergeKey)) throw smpErrors.noMergeKey(m, mergeKey);
    }
    return (item as Obj)[mergeKey] === (ordered as Obj)[mergeKey];
  };
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isPlainObject(items[p]) && has(items[p] as Obj, PATCH)) {
      p++;
      continue;
    }
    if (sameKey(items[p], order[o])) p++;
    o++;
  }
  if (p < items.length) throw smpErrors.orderMismatch(patchList, order);
}

/** What strategicpatch's index() compares: the merge key's value for maps, the value itself for scalars. */
function identity(item: unknown, mergeKey: string | undefined): unknown {
  return mergeKey ? (isPlainObject(item) ? item[mergeKey] : undefined) : item;
}

/** strategicpatch's index() for every item at once: the first position of each identity in `list`. */
function positions(list: unknown[], mergeKey: string | undefined): Map<unknown, number> {
  const at = new Map<unknown, number>();
  list.forEach((item, i) => {
    const id = identity(item, mergeKey);
    if (!at.has(id)) at.set(id, i);
  });
  return at;
}

/**
 * Go's sort.SliceStable (insertion sort of blocks of 20, then SymMerge) over precomputed ranks, so
 * that even with normalizeSliceOrder's comparator, which is no order when an item is not in the
 * order list (it is then "less" than anything), the result is Go's, in O(n log² n).
 */
function goStableSort<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  const data = [...items];
  const swap = (i: number, j: number): void => {
    [data[i], data[j]] = [data[j], data[i]];
  };
  const insertionSort = (a: number, b: number): void => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && less(data[j], data[j - 1]); j--) swap(j, j - 1);
  };
  const swapRange = (a: number, b: number, n: number): void => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number): void => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (less(data[h], data[a])) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!less(data[m], data[h])) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!less(data[p - c], data[c])) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };
  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
  return data;
}

/** normalizeSliceOrder: a stable sort of `items` by their position in `order` (Go's sort.SliceStable and comparator). */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string | undefined): unknown[] {
  const at = positions(order, mergeKey);
  const ranked = items.map((item) => ({ item, rank: at.get(identity(item, mergeKey)) ?? -1 }));
  const sorted = goStableSort(ranked, (a, b) => (a.rank >= 0 && b.rank >= 0 ? a.rank < b.rank : true));
  return sorted.map((r) => r.item);
}

/**
 * normalizeElementOrder + mergeSortedSlice: patch items keep the patch's (or $setElementOrder's)
 * order, server-only items keep the live order, and a server-only item goes before a patch item
 * only when the live list has both and puts it first. Items the live list lacks therefore lead.
 */
function normalizeOrder(patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string | undefined): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const at = positions(serverOrder, mergeKey);
  const rank = (item: unknown): number => at.get(identity(item, mergeKey)) ?? -1;
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = rank(left[i]);
    const ri = rank(right[j]);
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
    else out.push(right[j++]);
  }
  return [...out, ...left.slice(i), ...right.slice(j)];
}

/** Splits `merged` into the items `by` names (by merge key or value) and the rest, keeping order. */
function partition(merged: unknown[], by: unknown[], mergeKey: string | undefined): [unknown[], unknown[]] {
  const named: unknown[] = [];
  const rest: unknown[] = [];
  const at = positions(by, mergeKey);
  for (const v of merged) (at.has(identity(v, mergeKey)) ? named : rest).push(v);
  return [named, rest];
}

/** How many items of a list are merged between two yields of the walk (a yield passes up through every level of it). */
const ITEMS_PER_YIELD = 64;

/** mergeSlice for a list with the merge strategy. */
function* mergeList(original: unknown[], patch: unknown[], meta: FieldPatchMeta): Walk<unknown[]> {
  if (original.length === 0 && patch.length === 0) return original;
  if (elementType(original, patch) !== 'map[string]interface {}') {
    const merged = [...new Set([...original, ...patch])];
    const [patchItems, serverOnly] = partition(merged, patch, undefined);
    return normalizeOrder(patchItems, serverOnly, patch, original, undefined);
  }
  const mergeKey = meta.mergeKey;
  if (!mergeKey) throw badRequest('cannot merge lists without merge key');
  // mergeSliceWithSpecialElements: $patch items delete entries or turn the merge into a replace.
  const deleted = new Set<unknown>();
  let items: Obj[] = [];
  let replace = false;
  for (const p of patch as Obj[]) {
    if (!has(p, PATCH)) {
      items.push(p);
      continue;
    }
    const directive = p[PATCH];
    if (directive === 'delete') {
      if (!has(p, mergeKey)) throw smpErrors.noMergeKey(p, mergeKey);
      deleted.add(p[mergeKey]);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw smpErrors.mergeDirectiveInList();
    } else {
      throw smpErrors.badPatchType(directive, p);
    }
  }
  let base = deleted.size === 0 ? [...original] : original.filter((o) => !(isPlainObject(o) && has(o, mergeKey) && deleted.has(o[mergeKey])));
  if (replace) {
    base = items.map((p) => clean(p));
    items = [];
  }
  // mergeSliceWithoutSpecialElements: merge by key, append what the list lacks.
  const merged = [...base];
  const byKey = new Map<unknown, number>();
  merged.forEach((o, i) => {
    if (isPlainObject(o) && has(o, mergeKey) && !byKey.has(o[mergeKey])) byKey.set(o[mergeKey], i);
  });
  for (const [n, p] of items.entries()) {
    if (!has(p, mergeKey)) throw smpErrors.noMergeKey(p, mergeKey);
    const index = byKey.get(p[mergeKey]);
    if (index !== undefined) merged[index] = yield* mergeObjectWalk(merged[index] as Obj, p, meta.schema);
    else byKey.set(p[mergeKey], merged.push(clean(p)) - 1);
    if (n % ITEMS_PER_YIELD === ITEMS_PER_YIELD - 1) yield;
  }
  yield;
  const [patchItems, serverOnly] = partition(merged, items, mergeKey);
  yield;
  return normalizeOrder(patchItems, serverOnly, items, base, mergeKey);
}

function* mergeValue(original: unknown, patch: unknown, meta: FieldPatchMeta | null): Walk<unknown> {
  if (isPlainObject(original) && isPlainObject(patch)) {
    if (meta?.strategies.includes('replace')) return clean(patch);
    return yield* mergeObjectWalk(original, patch, meta?.schema ?? null);
  }
  if (Array.isArray(original) && Array.isArray(patch)) {
    // Lists without the merge strategy are atomic: the patch replaces them.
    return meta?.strategies.includes('merge') ? yield* mergeList(original, patch, meta) : clean(patch);
  }
  return withoutDirectives(patch);
}

/** applyRetainKeysDirective: every key the patch sets must be retained; everything else goes. */
function applyRetainKeys(result: Obj, patch: Obj): void {
  const list = patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw smpErrors.badRetainKeys();
  const retain = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (k === RETAIN_KEYS || v === null || k.startsWith('$deleteFromPrimitiveList') || k.startsWith('$setElementOrder')) continue;
    if (!retain.has(k)) throw smpErrors.badRetainKeys();
  }
  for (const k of Object.keys(result)) if (!retain.has(k)) delete result[k];
}

/**
 * mergePatchIntoOriginal: a list named by $setElementOrder is merged, then put in that order. The
 * directive must be a list, name its field after a slash, and give the patch list's items in their
 * order; the lists it orders must be lists. Returns the field it ordered.
 */
function* applyElementOrder(result: Obj, patch: Obj, directive: string, schema: PatchSchema | null): Walk<string> {
  const order = patch[directive];
  if (!Array.isArray(order)) throw smpErrors.notAList(order);
  const key = directiveTarget(directive, SET_ORDER);
  if (key === undefined) throw smpErrors.badSetElementOrder();
  const live = has(result, key) ? result[key] : undefined;
  const patched = has(patch, key) ? patch[key] : undefined;
  if (live !== undefined && !Array.isArray(live)) throw smpErrors.notAList(live);
  if (patched !== undefined && !Array.isArray(patched)) throw smpErrors.notAList(patched);
  const meta = schema?.field(key) ?? null;
  checkPatchOrder(patched ?? [], order, meta?.mergeKey);
  if (live === undefined && patched === undefined) return key;
  const merged =
    patched === undefined
      ? (live as unknown[])
      : live === undefined
        ? (withoutDirectives(patched) as unknown[])
        : ((yield* mergeValue(live, patched, meta)) as unknown[]);
  const mergeKey = merged.some(isPlainObject) ? meta?.mergeKey : undefined;
  const [patchItems, serverOnly] = partition(merged, order, mergeKey);
  // normalizeSliceOrder: the items of a list of maps, and the order's, carry the merge key
  if (mergeKey && elementType(live ?? [], patched ?? []) === 'map[string]interface {}') checkMergeKeys(mergeKey, patchItems, order);
  setOwn(result, key, normalizeOrder(patchItems, serverOnly, order, (live as unknown[] | undefined) ?? [], mergeKey));
  return key;
}

/** Applies a strategic merge patch to an object, per the schema's list and map semantics (strategicpatch.mergeMap). */
function* mergeObjectWalk(original: Obj, patch: Obj, schema: PatchSchema | null): Walk<Obj> {
  if (has(patch, PATCH)) {
    const directive = patch[PATCH];
    if (directive === 'replace') return clean(patch) as Obj;
    if (directive === 'delete') return {};
    // Kubernetes knows no "$patch: merge" on a map either.
    throw smpErrors.badPatchType(directive, patch);
  }
  const result: Obj = { ...original };
  if (has(patch, RETAIN_KEYS)) applyRetainKeys(result, patch);
  const ordered = new Set<string>();
  for (const key of Object.keys(patch)) {
    if (key.startsWith(SET_ORDER)) ordered.add(yield* applyElementOrder(result, patch, key, schema));
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === RETAIN_KEYS || key.startsWith(SET_ORDER) || ordered.has(key)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
      const target = directiveTarget(key, DELETE_FROM_PRIMITIVE);
      if (target === undefined) throw smpErrors.badPrimitiveList();
      if (Array.isArray(value) && Array.isArray(result[target])) {
        elementType(result[target] as unknown[], value);
        const removed = new Set(value);
        setOwn(
          result,
          target,
          (result[target] as unknown[]).filter((v) => !removed.has(v)),
        );
      }
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = has(result, key) ? result[key] : undefined;
    const merged = current === undefined ? withoutDirectives(value) : yield* mergeValue(current, value, schema?.field(key) ?? null);
    if (merged === undefined) delete result[key];
    else setOwn(result, key, merged);
  }
  return result;
}

function* patchWalk(original: unknown, patch: unknown, schema: PatchSchema | null): Walk<unknown> {
  if (!isPlainObject(patch)) throw badRequest('json: cannot unmarshal into Go value of type map[string]interface {}');
  return yield* mergeObjectWalk(isPlainObject(original) ? original : {}, patch, schema);
}

export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: PatchSchema | null): unknown {
  return runWalk(patchWalk(original, patch, schema));
}

/** applyStrategicMergePatch for a request: a long list's items are merged in slices, between other requests. */
export function applyStrategicMergePatchInSlices(original: unknown, patch: unknown, schema: PatchSchema | null, slice: () => Promise<void>): Promise<unknown> {
  return runWalkInSlices(patchWalk(original, patch, schema), slice);
}
