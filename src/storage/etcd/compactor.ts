import { every, systemClock, type Clock } from '../../api/clock';
import { isStorageError } from '../storage-error';
import type { KV } from './kv';

/** The key whose mod revision orders compactions among every kapi replica sharing an etcd. */
export const COMPACT_REV_KEY = 'compact_rev_key';

/**
 * Compacts etcd's history every interval, to the revision seen one interval before, so that
 * at least one interval of history is always kept. Replicas agree through a guarded write of
 * COMPACT_REV_KEY: only the one whose write lands compacts; the others learn the key's new
 * version and try again next interval.
 */
export class Compactor {
  /** The mod revision of COMPACT_REV_KEY this replica last saw (0: absent). */
  private seen = 0;
  /** The revision recorded at the last successful round: the next compaction point. */
  private pending = 0;
  private stopRounds: (() => void) | null = null;

  constructor(
    private readonly kv: KV,
    private readonly intervalMs: number,
    private readonly log: (message: string, err?: unknown) => void,
    private readonly onCompacted: (revision: number) => void = () => undefined,
    private readonly clock: Clock = systemClock,
  ) {}

  start(): void {
    if (this.intervalMs <= 0) return;
    this.stopRounds = every(this.clock, this.intervalMs, () => {
      this.round().catch((err: unknown) => this.log('etcd compaction failed', err));
    });
  }

  stop(): void {
    this.stopRounds?.();
  }

  /** One round; returns the revision compacted to, or 0 when this replica did not compact. */
  async round(): Promise<number> {
    const { revision } = await this.kv.get(COMPACT_REV_KEY);
    const value = Buffer.from(String(revision));
    const res = this.seen === 0 ? await this.kv.create(COMPACT_REV_KEY, value) : await this.kv.update(COMPACT_REV_KEY, value, this.seen);
    const target = this.pending;
    this.pending = revision;
    if (!res.ok) {
      // Another replica compacts this round; this one follows its clock and may take over later.
      this.seen = res.current?.modRevision ?? 0;
      return 0;
    }
    this.seen = res.revision;
    if (target === 0) return 0;
    try {
      await this.kv.compact(target);
    } catch (err) {
      if (isStorageError(err, 'TooOld')) return 0;
      throw err;
    }
    this.log(`etcd compacted to revision ${target}`);
    this.onCompacted(target);
    return target;
  }
}
