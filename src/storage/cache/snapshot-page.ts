import type { KubeObject } from '../../api/types';
import { encodeContinue } from '../continue-token';
import type { ListResult, Predicate, StorageEvent } from '../interfaces';

/** What a page is read from: the current objects and the changes made since the revision asked for. */
export interface SnapshotSource {
  /** Current keys under the prefix, sorted. */
  keys: string[];
  current: (key: string) => KubeObject | undefined;
  /** Events after the snapshot's revision, oldest first. */
  later: StorageEvent[];
}

export interface PageRequest {
  prefix: string;
  revision: number;
  /** The first key the page may hold. */
  start: string;
  /** 0 for everything. */
  limit: number;
  predicate: Predicate;
}

/** The index of the first of the sorted keys not below `key`. */
export function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function mergeSorted(a: string[], b: string[]): string[] {
  if (b.length === 0) return a;
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else if (i >= a.length || b[j] < a[i]) out.push(b[j++]);
    else {
      out.push(a[i++]);
      j++;
    }
  }
  return out;
}

/**
 * One page of the objects under a prefix as they were at a past revision: the current objects with
 * every later change undone (a key's first later event holds its state at the revision). The
 * continue token and remainingItemCount are those an etcd read at that revision would give.
 */
export function snapshotPage(source: SnapshotSource, req: PageRequest): ListResult {
  const undone = new Map<string, KubeObject | null>();
  for (const e of source.later) {
    if (e.key.startsWith(req.prefix) && !undone.has(e.key)) undone.set(e.key, e.type === 'ADDED' ? null : (e.previous ?? null));
  }
  const keys = mergeSorted(source.keys, [...undone.keys()].sort());
  const at = (key: string): KubeObject | null | undefined => (undone.has(key) ? undone.get(key) : source.current(key));
  const items: KubeObject[] = [];
  let i = lowerBound(keys, req.start);
  let lastKey = '';
  for (; i < keys.length; i++) {
    const obj = at(keys[i]);
    if (!obj) continue;
    lastKey = keys[i];
    if (req.predicate.matches(obj)) items.push(obj);
    if (req.limit > 0 && items.length >= req.limit) break;
  }
  const result: ListResult = { items, resourceVersion: String(req.revision) };
  if (i >= keys.length) return result;
  let remaining = 0;
  for (let j = i + 1; j < keys.length; j++) {
    if (!at(keys[j])) continue;
    remaining++;
    if (!req.predicate.empty) break;
  }
  if (remaining === 0) return result;
  result.continue = encodeContinue({ revision: req.revision, startKey: `${lastKey}\0`.slice(req.prefix.length) });
  if (req.predicate.empty) result.remainingItemCount = remaining;
  return result;
}
