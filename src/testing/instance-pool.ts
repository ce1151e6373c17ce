/** Which instances are interchangeable before a caller takes one: same etcd, same feature gates. */
export interface PoolKey {
  etcdEndpoint: string;
  /** The gates as the flag spells them, normalised (sorted, every gate that differs from its default). */
  featureGates: string;
}

const MAX_SPARES = 2;

/**
 * Servers started ahead of demand. A caller gets a spare of its kind when there is one (ready or
 * still starting), and a new spare of that kind is started once no caller is being served, so a
 * test file that follows another pays only for its CRDs. At most MAX_SPARES kinds are kept, the least
 * recently wanted stopped first.
 */
export class InstancePool<Instance extends { stop(): Promise<void> }> {
  private readonly spares = new Map<string, Promise<Instance | null>>();
  private readonly wanted = new Map<string, PoolKey>();
  private inFlight = 0;
  private closed = false;

  constructor(private readonly boot: (key: PoolKey) => Promise<Instance>) {}

  /**
   * Runs `use` (the caller's set-up of its instance) on a spare of this kind when there is one,
   * else on a new instance; spares are started again only when no caller is being served.
   */
  async serve<T>(key: PoolKey, use: (instance: Instance) => Promise<T>): Promise<T> {
    const id = JSON.stringify(key);
    this.wanted.delete(id);
    this.wanted.set(id, key);
    this.inFlight++;
    try {
      const spare = this.spares.get(id);
      this.spares.delete(id);
      return await use((await spare) ?? (await this.boot(key)));
    } finally {
      if (--this.inFlight === 0) this.replenish();
    }
  }

  private replenish(): void {
    if (this.closed) return;
    const ids = [...this.wanted.keys()];
    for (const id of ids.slice(0, Math.max(0, ids.length - MAX_SPARES))) {
      this.wanted.delete(id);
      this.discard(id).catch(() => undefined);
    }
    for (const [id, key] of this.wanted) {
      if (!this.spares.has(id)) this.spares.set(id, this.boot(key).catch(() => null));
    }
  }

  private async discard(id: string): Promise<void> {
    const spare = this.spares.get(id);
    this.spares.delete(id);
    await (await spare)?.stop();
  }

  /** Stops every spare; none is started afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.spares.keys()].map((id) => this.discard(id)));
  }
}
