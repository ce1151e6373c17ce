/** Which instances are interchangeable before a caller takes one: same etcd, same feature gates, as many simulated nodes. */
export interface PoolKey {
  etcdEndpoint: string;
  /** The gates as the flag spells them, normalised (sorted, every gate that differs from its default). */
  featureGates: string;
  /** --simulated-nodes. */
  simulatedNodes: number;
}

/** Kinds with spares kept, the least recently wanted dropped first. */
const MAX_KINDS = 2;
/** Spares of one kind at most (jest's usual worker counts). */
const MAX_SPARES_PER_KIND = 4;

interface Kind<Instance> {
  key: PoolKey;
  spares: Promise<Instance | null>[];
  serving: number;
  /** The most callers of this kind served at once: how many spares it keeps. */
  peak: number;
}

/**
 * Servers started ahead of demand. A caller gets a spare of its kind when there is one (ready or
 * still starting), and spares are started again once no caller is being served, as many as the
 * kind has had callers at once (parallel jest workers each starting a test file), so a test file
 * that follows another pays only for its CRDs.
 */
export class InstancePool<Instance extends { stop(): Promise<void> }> {
  /** In the order last wanted. */
  private readonly kinds = new Map<string, Kind<Instance>>();
  private inFlight = 0;
  private closed = false;

  constructor(private readonly boot: (key: PoolKey) => Promise<Instance>) {}

  /**
   * Runs `use` (the caller's set-up of its instance) on a spare of this kind when there is one,
   * else on a new instance.
   */
  async serve<T>(key: PoolKey, use: (instance: Instance) => Promise<T>): Promise<T> {
    const id = JSON.stringify(key);
    const kind = this.kinds.get(id) ?? { key, spares: [], serving: 0, peak: 0 };
    this.kinds.delete(id);
    this.kinds.set(id, kind);
    kind.peak = Math.max(kind.peak, ++kind.serving);
    this.inFlight++;
    try {
      const spare = kind.spares.shift();
      return await use((await spare) ?? (await this.boot(key)));
    } finally {
      kind.serving--;
      if (--this.inFlight === 0) this.replenish();
    }
  }

  private replenish(): void {
    if (this.closed) return;
    const ids = [...this.kinds.keys()];
    for (const id of ids.slice(0, Math.max(0, ids.length - MAX_KINDS))) void this.discard(id);
    for (const kind of this.kinds.values()) {
      while (kind.spares.length < Math.min(kind.peak, MAX_SPARES_PER_KIND)) kind.spares.push(this.boot(kind.key).catch(() => null));
    }
  }

  private discard(id: string): Promise<void> {
    const spares = this.kinds.get(id)?.spares ?? [];
    this.kinds.delete(id);
    return Promise.all(spares.map(async (spare) => (await spare)?.stop().catch(() => undefined))).then(() => undefined);
  }

  /** Stops every spare; none is started afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.kinds.keys()].map((id) => this.discard(id)));
  }
}
