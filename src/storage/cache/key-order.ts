import type { KubeObject } from '../../api/types';
import { prefixEnd } from '../etcd/kv';
import { lowerBound } from './snapshot-page';

/** The keys under a prefix and their objects, in key order: `objects[i]` is stored under `keys[i]`, for i in [from, to). */
export interface KeyRange {
  keys: string[];
  objects: KubeObject[];
  from: number;
  to: number;
}

/**
 * A watch cache's objects in key order, as lists walk them (kube's watchCache keeps its store as an
 * ordered btree for the same reason). Built from the map when a list needs it and a key has come or
 * gone since; a changed object is put in its place, so a cache whose set of keys holds still lists
 * without a lookup per object.
 */
export class KeyOrder {
  private keys: string[] | null = null;
  private objects: KubeObject[] = [];

  /** A key came or went: the order is rebuilt by the next read. */
  reset(): void {
    this.keys = null;
  }

  /** The object stored under an existing key changed. */
  replaced(key: string, object: KubeObject): void {
    if (this.keys === null) return;
    const i = lowerBound(this.keys, key);
    if (this.keys[i] === key) this.objects[i] = object;
    else this.keys = null;
  }

  range(current: Map<string, KubeObject>, prefix: string): KeyRange {
    if (this.keys === null) {
      const keys = [...current.keys()].sort();
      this.objects = keys.map((key) => current.get(key)!);
      this.keys = keys;
    }
    const keys = this.keys;
    return { keys, objects: this.objects, from: lowerBound(keys, prefix), to: lowerBound(keys, prefixEnd(prefix)) };
  }
}
