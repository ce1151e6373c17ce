import type { KubeObject } from '../../api/types';

/** client-go's IndexFunc: the values an object is filed under in one index (none: not filed). */
export type IndexFunc = (obj: KubeObject) => readonly string[];

/**
 * One of client-go's informer indices (cache.Indexer's ByIndex): an informer's objects by the
 * values an IndexFunc gives them, kept up to date as objects come, change and go, so a controller
 * finds the few objects it wants without scanning them all.
 */
export class ObjectIndex {
  private readonly buckets = new Map<string, Map<string, KubeObject>>();

  constructor(private readonly indexFunc: IndexFunc) {}

  /** The object under `key` went from `previous` to `next` (undefined: absent). */
  update(key: string, previous: KubeObject | undefined, next: KubeObject | undefined): void {
    const before = previous ? this.indexFunc(previous) : NONE;
    const after = next ? this.indexFunc(next) : NONE;
    for (const value of before) {
      if (after.includes(value)) continue;
      const bucket = this.buckets.get(value);
      if (!bucket) continue;
      bucket.delete(key);
      if (bucket.size === 0) this.buckets.delete(value);
    }
    for (const value of after) {
      let bucket = this.buckets.get(value);
      if (!bucket) this.buckets.set(value, (bucket = new Map()));
      bucket.set(key, next!);
    }
  }

  /** The objects filed under `value`. */
  get(value: string): KubeObject[] {
    const bucket = this.buckets.get(value);
    return bucket ? [...bucket.values()] : [];
  }
}

const NONE: readonly string[] = [];
