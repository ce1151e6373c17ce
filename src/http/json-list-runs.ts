import { keptObjectJson, objectJson } from './object-json';

/**
 * A JSON list's items written as runs of consecutive items whose bytes are kept between lists.
 *
 * A list of 10,000 cached objects spent most of its time copying each item's kept JSON (scattered
 * over the heap) into the pieces it wrote. Here the items are cut into runs at "boundary" items,
 * chosen by a hash of their uid, so the cuts depend on the objects and not on their positions: a
 * list of the same objects finds the same runs, and a created, changed or deleted object changes
 * only the run it falls in. A run's bytes (`,item,item,...`) are kept per first item and are
 * reused when the list holds exactly the same objects from there to the next cut; otherwise the
 * run is rebuilt, copying the bytes of the items it still holds from the run it replaces.
 *
 * Memory: a run is kept only while its first item lives, and only runs starting at a boundary (or
 * at the cut after a run of the longest length) are kept, so each live object starts at most one
 * kept run of at most MAX_RUN items. The head of a list, before its first boundary, is not kept:
 * it is written from per-object JSON (`object-json.ts`).
 */

/** About one item in RUN_SPACING is a boundary, so runs average this many items: tens of KB of typical objects per piece. */
const RUN_SPACING = 64;
/** A run is cut here even without a boundary, so that building one fits a loop slice (256 pods: ~3 ms; the serialization bench encodes 10,000 in ~100 ms). */
const MAX_RUN = 4 * RUN_SPACING;
const COMMA = 0x2c;

interface Run {
  /** The items, by identity. */
  items: readonly unknown[];
  /** `,` + each item's JSON, one after the other. */
  bytes: Buffer;
  /** Item k's JSON is bytes[starts[k], starts[k + 1] - 1): each start is after that item's comma. */
  starts: Uint32Array;
}

const runOfFirstItem = new WeakMap<object, Run>();

function isObject(item: unknown): item is object {
  return typeof item === 'object' && item !== null;
}

/** Whether a run starts at this item: FNV-1a of its uid, so the choice survives updates and restarts. */
function isBoundary(item: unknown): boolean {
  const uid = isObject(item) ? (item as { metadata?: { uid?: unknown } }).metadata?.uid : undefined;
  if (typeof uid !== 'string') return false;
  let hash = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) hash = Math.imul(hash ^ uid.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % RUN_SPACING === 0;
}

/** Where the run starting at `from` ends: the next boundary, MAX_RUN items on, or the end of the list. */
function runEnd(items: readonly unknown[], from: number): number {
  const last = Math.min(items.length, from + MAX_RUN);
  for (let i = from + 1; i < last; i++) if (isBoundary(items[i])) return i;
  return last;
}

/** Whether the kept run is exactly items[from, from + run.items.length) and ends where a run starting there would. */
function matches(run: Run, items: readonly unknown[], from: number): boolean {
  const n = run.items.length;
  if (from + n > items.length) return false;
  for (let k = 0; k < n; k++) if (run.items[k] !== items[from + k]) return false;
  const end = from + n;
  return end === items.length || n === MAX_RUN || isBoundary(items[end]);
}

function itemJson(item: unknown, previous: Map<unknown, Buffer> | null, keepEach: boolean): Buffer {
  if (!isObject(item)) return Buffer.from(JSON.stringify(item));
  const reused = previous?.get(item) ?? keptObjectJson(item);
  if (reused) return reused;
  return keepEach ? objectJson(item) : Buffer.from(JSON.stringify(item));
}

/**
 * The run of items[from, end). A run that will be kept, built for the first time, copies each
 * item's JSON into itself and keeps nothing else, so a listed collection's bytes are held once; a
 * rebuild, and a list's head (never kept), keep the JSON of the items they encode, as a list did
 * before runs.
 */
function buildRun(items: readonly unknown[], from: number, end: number, replaced: Run | undefined, kept: boolean): Run {
  const keepEach = !kept || replaced !== undefined;
  let previous: Map<unknown, Buffer> | null = null;
  if (replaced) {
    previous = new Map();
    for (let k = 0; k < replaced.items.length; k++) previous.set(replaced.items[k], replaced.bytes.subarray(replaced.starts[k], replaced.starts[k + 1] - 1));
  }
  const parts: Buffer[] = [];
  let size = 0;
  for (let i = from; i < end; i++) {
    const part = itemJson(items[i], previous, keepEach);
    parts.push(part);
    size += part.length + 1;
  }
  const bytes = Buffer.allocUnsafe(size);
  const starts = new Uint32Array(parts.length + 1);
  let offset = 0;
  for (let k = 0; k < parts.length; k++) {
    bytes[offset++] = COMMA;
    starts[k] = offset;
    bytes.set(parts[k], offset);
    offset += parts[k].length;
  }
  starts[parts.length] = offset + 1;
  return { items: items.slice(from, end), bytes, starts };
}

/**
 * The items' JSON in pieces that concatenate to `item,item,...` (no brackets): kept runs where the
 * list still holds them, new runs kept for the next list otherwise.
 */
export function* jsonItemPieces(items: readonly unknown[]): Iterable<Buffer> {
  let from = 0;
  while (from < items.length) {
    const first = items[from];
    const keepable = isObject(first) && (from > 0 || isBoundary(first));
    let run = keepable ? runOfFirstItem.get(first) : undefined;
    if (!run || !matches(run, items, from)) {
      const built = buildRun(items, from, runEnd(items, from), run, keepable);
      if (keepable) runOfFirstItem.set(first, built);
      run = built;
    }
    // The first item has no comma before it.
    yield from === 0 ? run.bytes.subarray(1) : run.bytes;
    from += run.items.length;
  }
}
