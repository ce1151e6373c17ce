import { andThen, type MaybePromise } from '../../api/maybe-promise';
import type { KubeObject } from '../../api/types';

/** A namespace's objects of one kind: from the watch cache, or from etcd when `live`. */
export type NamespaceList = (namespace: string, live: boolean) => MaybePromise<KubeObject[]>;

/** The LRUs' size in kube's LimitRanger and quotaAccessor. */
const REMEMBERED = 10_000;
/** Their liveTTL. */
const LIVE_TTL_MS = 30_000;

/** Sets a key in a map bounded to REMEMBERED entries, forgetting the oldest. */
export function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value!);
}

/**
 * The objects of a namespace as kube's LimitRanger and quotaAccessor read them: from the cache;
 * when it has none (it may lag a create), from etcd, and that answer is kept for 30 s so that
 * namespaces without any do not cost a read per write.
 */
export class LiveLookup {
  private readonly entries = new Map<string, { until: number; items: KubeObject[] }>();

  constructor(
    private readonly list: NamespaceList,
    private readonly now: () => number,
  ) {}

  get(namespace: string): MaybePromise<KubeObject[]> {
    return andThen(this.list(namespace, false), (cached) => (cached.length > 0 ? cached : this.live(namespace)));
  }

  private live(namespace: string): MaybePromise<KubeObject[]> {
    const now = this.now();
    const entry = this.entries.get(namespace);
    if (entry && entry.until >= now) return entry.items;
    return andThen(this.list(namespace, true), (items) => {
      remember(this.entries, namespace, { until: now + LIVE_TTL_MS, items });
      return items;
    });
  }
}
