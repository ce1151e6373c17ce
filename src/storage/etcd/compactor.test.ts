import { ManualClock } from '../../api/clock';
import { Compactor, COMPACT_REV_KEY } from './compactor';
import type { KeyValue, KV, WriteResult } from './kv';

/** The part of etcd a compactor uses: a revision that moves with writes, one guarded key, compactions. */
class CompactionEtcd {
  revision = 100;
  compactedTo: number[] = [];
  private key: KeyValue | null = null;

  asKv(): KV {
    const fake: Pick<KV, 'get' | 'create' | 'update' | 'compact'> = {
      get: async () => ({ kv: this.key, revision: this.revision }),
      create: async (key, value) => this.write(key, value, 0),
      update: async (key, value, modRevision) => this.write(key, value, modRevision),
      compact: async (revision) => void this.compactedTo.push(revision),
    };
    return fake as KV;
  }

  private write(key: string, value: Buffer, modRevision: number): WriteResult {
    if ((this.key?.modRevision ?? 0) !== modRevision) return { ok: false, current: this.key, revision: this.revision };
    this.revision++;
    this.key = { key, value, createRevision: this.key?.createRevision ?? this.revision, modRevision: this.revision };
    return { ok: true, revision: this.revision };
  }
}

describe('Compactor on a ManualClock', () => {
  test('each interval compacts to the revision seen one interval before, never sooner', async () => {
    const clock = new ManualClock();
    const etcd = new CompactionEtcd();
    const compacted: number[] = [];
    const compactor = new Compactor(
      etcd.asKv(),
      5 * 60_000,
      () => undefined,
      (rev) => compacted.push(rev),
      clock,
    );
    compactor.start();
    try {
      await clock.advance(5 * 60_000 - 1);
      expect(etcd.compactedTo).toEqual([]);
      // First round: records the revision (100), compacts nothing.
      await clock.advance(1);
      expect(etcd.compactedTo).toEqual([]);
      etcd.revision += 50;
      // Second round: compacts to what the first one saw.
      await clock.advance(5 * 60_000);
      expect(etcd.compactedTo).toEqual([100]);
      expect(compacted).toEqual([100]);
      etcd.revision += 10;
      await clock.advance(5 * 60_000);
      expect(etcd.compactedTo).toEqual([100, 151]);
    } finally {
      compactor.stop();
    }
  });

  test('another replica that wrote the compaction key first compacts; this one follows it', async () => {
    const clock = new ManualClock();
    const etcd = new CompactionEtcd();
    const kv = etcd.asKv();
    const other = new Compactor(
      kv,
      60_000,
      () => undefined,
      () => undefined,
      clock,
    );
    const self = new Compactor(
      kv,
      60_000,
      () => undefined,
      () => undefined,
      clock,
    );
    other.start();
    await clock.advance(30_000);
    self.start();
    try {
      await clock.advance(30_000);
      expect(etcd.compactedTo).toEqual([]);
      // The other's second round compacts; this replica's guarded write of the key fails, as in kube's compactor.
      await clock.advance(60_000);
      expect(etcd.compactedTo).toEqual([100]);
      await clock.advance(60_000);
      expect(etcd.compactedTo.length).toBe(2);
      expect((await kv.get(COMPACT_REV_KEY)).kv).not.toBeNull();
    } finally {
      other.stop();
      self.stop();
    }
  });
});
