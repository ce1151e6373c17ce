import { conflict } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import { ManualClock } from './clock';
import { LeaderElector } from './leader-election';
import { recordOf, type LeaderElectionRecord, type ResourceLock } from './lease-lock';

/** One Lease in memory, seen by each candidate through a lock that can be cut off (a killed or partitioned process). */
class Lease {
  object: KubeObject | null = null;
  private version = 0;
  private readonly followers = new Set<(lease: KubeObject) => void>();

  private written(): void {
    for (const follower of this.followers) follower(structuredClone(this.object!));
  }

  lockFor(opts: { follow: boolean } = { follow: false }): ResourceLock & { cut: boolean } {
    const lease = this;
    const follow = (changed: (lease: KubeObject) => void): (() => void) => {
      lease.followers.add(changed);
      return () => lease.followers.delete(changed);
    };
    return {
      ...(opts.follow ? { follow } : {}),
      name: 'kapi-controller-manager',
      cut: false,
      describe: () => 'kube-system/kapi-controller-manager',
      async get() {
        if (this.cut) return new Promise<never>(() => undefined);
        return lease.object && structuredClone(lease.object);
      },
      async create(record: LeaderElectionRecord) {
        if (this.cut) return new Promise<never>(() => undefined);
        if (lease.object) throw conflict({ group: 'coordination.k8s.io', resource: 'leases' }, 'kapi-controller-manager', 'exists');
        lease.object = {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'kapi-controller-manager', resourceVersion: String(++lease.version) },
          spec: { ...record },
        };
        lease.written();
        return structuredClone(lease.object);
      },
      async update(current: KubeObject, record: LeaderElectionRecord) {
        if (this.cut) return new Promise<never>(() => undefined);
        if (current.metadata.resourceVersion !== lease.object?.metadata.resourceVersion) {
          throw conflict({ group: 'coordination.k8s.io', resource: 'leases' }, 'kapi-controller-manager', 'modified');
        }
        lease.object = { ...current, metadata: { ...current.metadata, resourceVersion: String(++lease.version) }, spec: { ...record } };
        lease.written();
        return structuredClone(lease.object);
      },
    };
  }

  get record(): LeaderElectionRecord {
    return recordOf(this.object!);
  }
}

const CONFIG = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

function candidate(lease: Lease, clock: ManualClock, identity: string, opts: { follow: boolean } = { follow: false }) {
  const lock = lease.lockFor(opts);
  const events: string[] = [];
  const elector = new LeaderElector(
    lock,
    { ...CONFIG, identity },
    { startedLeading: () => events.push('started'), stoppedLeading: () => events.push('stopped') },
    () => undefined,
    null,
    clock,
  );
  return { lock, events, elector };
}

describe('LeaderElector', () => {
  test('one candidate leads and renews; the other waits', async () => {
    const clock = new ManualClock();
    const lease = new Lease();
    const a = candidate(lease, clock, 'host_a');
    a.elector.run();
    await clock.advance(0);
    const b = candidate(lease, clock, 'host_b');
    b.elector.run();
    await clock.advance(60_000);
    expect(a.events).toEqual(['started']);
    expect(b.events).toEqual([]);
    expect(lease.record).toMatchObject({ holderIdentity: 'host_a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(Date.parse(lease.record.renewTime)).toBeGreaterThan(clock.now() - 2_500);
    expect(lease.record.renewTime).toMatch(/\.\d{6}Z$/);
    await a.elector.stop();
    await b.elector.stop();
  });

  test('a leader cut off stops leading after the renew deadline; another takes over once the lease has run out', async () => {
    const clock = new ManualClock();
    const lease = new Lease();
    const a = candidate(lease, clock, 'host_a');
    const b = candidate(lease, clock, 'host_b');
    a.elector.run();
    await clock.advance(0);
    b.elector.run();
    await clock.advance(5_000);
    const lastRenew = Date.parse(lease.record.renewTime);
    a.lock.cut = true;
    let took = 0;
    while (b.events.length === 0 && took < 60_000) {
      await clock.advance(100);
      took += 100;
    }
    expect(b.events).toEqual(['started']);
    const after = clock.now() - lastRenew;
    // The lease duration as B observed it, plus at most one jittered retry period.
    expect(after).toBeGreaterThanOrEqual(15_000);
    expect(after).toBeLessThanOrEqual(15_000 + 2_000 * 2.2 + 2_000);
    expect(a.events).toEqual(['started', 'stopped']);
    expect(a.elector.isLeader).toBe(false);
    expect(lease.record).toMatchObject({ holderIdentity: 'host_b', leaseTransitions: 1 });
    await b.elector.stop();
  });

  test('a candidate that follows the lease by watch takes over when the lease runs out, not at its next poll', async () => {
    for (const cutAfterMs of [5_000, 5_300, 6_100, 6_900]) {
      const clock = new ManualClock();
      const lease = new Lease();
      const a = candidate(lease, clock, 'host_a');
      const b = candidate(lease, clock, 'host_b', { follow: true });
      a.elector.run();
      await clock.advance(0);
      b.elector.run();
      await clock.advance(cutAfterMs);
      const lastRenew = Date.parse(lease.record.renewTime);
      a.lock.cut = true;
      while (b.events.length === 0 && clock.now() - lastRenew < 60_000) await clock.advance(50);
      expect(b.events).toEqual(['started']);
      const after = clock.now() - lastRenew;
      expect(after).toBeGreaterThanOrEqual(15_000);
      expect(after).toBeLessThanOrEqual(15_100);
      await b.elector.stop();
    }
  });

  test('a leader that stops releases the lease, and the next candidate takes it within a retry period', async () => {
    const clock = new ManualClock();
    const lease = new Lease();
    const a = candidate(lease, clock, 'host_a');
    const b = candidate(lease, clock, 'host_b');
    a.elector.run();
    await clock.advance(0);
    b.elector.run();
    await clock.advance(3_000);
    const stopping = a.elector.stop();
    await clock.advance(0);
    await stopping;
    expect(lease.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    await clock.advance(2_000 * 2.2);
    expect(b.events).toEqual(['started']);
    expect(lease.record).toMatchObject({ holderIdentity: 'host_b', leaseTransitions: 1 });
    await b.elector.stop();
  });
});
