import type { KubeObject } from '../../api/types';
import type { ItemsType } from '../interfaces';

/**
 * How many of a watch cache's objects carry each apiVersion and kind, so that a list can say that
 * all its items carry one pair without reading each item: the registry then shows them as they
 * are instead of checking every object's version (a read of each of 10,000 objects scattered over
 * the heap cost a list of them about 2-3 ms, the largest part left of a cached list).
 */
export class TypeTally {
  /** Objects by apiVersion, then kind (either may be missing from an object). */
  private counts = new Map<string | undefined, Map<string | undefined, number>>();

  reset(objects: Iterable<KubeObject>): void {
    this.counts = new Map();
    for (const object of objects) this.add(object);
  }

  add(object: KubeObject): void {
    let kinds = this.counts.get(object.apiVersion);
    if (!kinds) this.counts.set(object.apiVersion, (kinds = new Map()));
    kinds.set(object.kind, (kinds.get(object.kind) ?? 0) + 1);
  }

  remove(object: KubeObject): void {
    const kinds = this.counts.get(object.apiVersion);
    const n = kinds?.get(object.kind);
    if (!kinds || n === undefined) return;
    if (n > 1) kinds.set(object.kind, n - 1);
    else {
      kinds.delete(object.kind);
      if (kinds.size === 0) this.counts.delete(object.apiVersion);
    }
  }

  /** The one apiVersion and kind every object carries; undefined when there are none, several, or objects without them. */
  only(): ItemsType | undefined {
    if (this.counts.size !== 1) return undefined;
    const [[apiVersion, kinds]] = this.counts;
    if (kinds.size !== 1) return undefined;
    const [[kind]] = kinds;
    return apiVersion === undefined || kind === undefined ? undefined : { apiVersion, kind };
  }
}
