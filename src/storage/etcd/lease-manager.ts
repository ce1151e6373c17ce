import type { KV, KvCallOptions } from './kv';

/** The most objects one lease carries (etcd3 store's leaseMaxAttachedObjectCount). */
const MAX_ATTACHED = 1000;
/** How long a lease may be reused: 5% of the TTL, at most a minute (leaseReuseDurationPercent, leaseReuseDurationSeconds). */
const REUSE_PERCENT = 0.05;
const REUSE_MAX_SECONDS = 60;

/**
 * k8s.io/apiserver's etcd3 leaseManager: objects written with a TTL share a lease granted a little
 * longer than asked (the reuse window), so a burst of events costs one grant, not one each. A
 * lease is reused while it outlives the asked TTL and ends within the window after it.
 */
export class LeaseManager {
  private leaseId = '';
  private expiresAt = 0;
  private attached = 0;
  /** One grant at a time, so a burst waits for it rather than granting many. */
  private granting: Promise<string> | null = null;

  constructor(
    private readonly kv: KV,
    private readonly now: () => number,
  ) {}

  async lease(ttlSeconds: number, call?: KvCallOptions): Promise<string> {
    for (;;) {
      if (this.granting) {
        await this.granting.catch(() => undefined);
        continue;
      }
      const reuse = Math.min(Math.trunc(REUSE_PERCENT * ttlSeconds), REUSE_MAX_SECONDS);
      const now = this.now();
      const valid = now + ttlSeconds * 1000 < this.expiresAt;
      // Go compares nanoseconds (After); at millisecond grain the grant's own instant must count too.
      const sufficient = now + (ttlSeconds + reuse) * 1000 >= this.expiresAt;
      this.attached++;
      if (this.leaseId && valid && sufficient && this.attached <= MAX_ATTACHED) return this.leaseId;
      const granted = this.kv.grantLease(ttlSeconds + reuse, call);
      this.granting = granted;
      try {
        this.leaseId = await granted;
        this.expiresAt = now + (ttlSeconds + reuse) * 1000;
        this.attached = 1;
        return this.leaseId;
      } finally {
        this.granting = null;
      }
    }
  }
}
