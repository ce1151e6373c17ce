import type { KubeObject } from '../../api/types';

/** A namespace's objects of one kind: from the watch cache, or from etcd when `live`. */
export type NamespaceList = (namespace: string, live: boolean) => Promise<KubeObject[]>;

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

  async get(namespace: string): Promise<KubeObject[]> {
    const cached = await this.list(namespace, false);
    if (cached.length > 0) return cached;
    const now = this.now();
    let entry = this.entries.get(namespace);
    if (!entry || entry.until < now) {
      entry = { until: now + LIVE_TTL_MS, items: await this.list(namespace, true) };
      remember(this.entries, namespace, entry);
    }
    return entry.items;
  }
}
