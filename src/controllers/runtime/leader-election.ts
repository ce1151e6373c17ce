import { Gauge, type Registry } from 'prom-client';
import { sleep, systemClock, type Clock } from './clock';
import type { ControllerLog } from './informer';
import type { KubeObject } from '../../api/types';
import { recordOf, type LeaderElectionRecord, type ResourceLock } from './lease-lock';
import { microTime } from './micro-time';

export interface LeaderElectionConfig {
  /** How long non-leaders wait after the last observed change before taking the lease over. */
  leaseDurationMs: number;
  /** How long the leader keeps trying to renew before it gives leadership up. */
  renewDeadlineMs: number;
  /** The wait between attempts to acquire or renew. */
  retryPeriodMs: number;
  /** This candidate: `<hostname>_<uuid>`, as kube-controller-manager's. */
  identity: string;
}

export interface LeaderCallbacks {
  startedLeading(): void;
  stoppedLeading(): void;
}

/** client-go's JitterFactor for acquiring. */
const JITTER_FACTOR = 1.2;
/** How long past its lease a leader that cannot renew still passes its health check (kube-controller-manager's 20 s). */
const MAX_TOLERABLE_EXPIRED_LEASE_MS = 20_000;

/**
 * client-go's LeaderElector (tools/leaderelection): acquire the lease (retrying every retry period,
 * jittered), then renew it every retry period; a renewal that does not succeed within the renew
 * deadline ends leadership. Another candidate's lease counts as held until leaseDuration has passed
 * since this candidate last saw it change (its own clock, not the holder's timestamps). `stop()`
 * releases a held lease (ReleaseOnCancel), so that a successor need not wait for it to expire.
 *
 * Unlike client-go, which sees the lease only when it polls (so a dead leader is replaced 15 s to
 * 15 + 2 x 2.2 s after its last renewal), a candidate here also follows the lease by watch when the
 * lock offers it, noting each change when it happens, and tries again the moment the lease it saw
 * runs out: a killed leader is replaced within the lease duration.
 */
export class LeaderElector {
  private observed: LeaderElectionRecord | null = null;
  private observedAt = 0;
  private leading = false;
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;
  private readonly clock: Clock;

  constructor(
    private readonly lock: ResourceLock,
    private readonly config: LeaderElectionConfig,
    private readonly callbacks: LeaderCallbacks,
    private readonly log: ControllerLog,
    private readonly status: Gauge<'name'> | null,
    clock?: Clock,
  ) {
    this.clock = clock ?? systemClock;
  }

  /** leader_election_master_status, as client-go's leader election metrics provider reports it. */
  static statusGauge(registry: Registry): Gauge<'name'> {
    return new Gauge({
      name: 'leader_election_master_status',
      help: "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'],
      registers: [registry],
    });
  }

  get isLeader(): boolean {
    return this.leading;
  }

  get identity(): string {
    return this.config.identity;
  }

  run(): void {
    this.status?.set({ name: this.lock.name }, 0);
    if (this.running) return;
    const unfollow = this.lock.follow?.((lease) => this.noteChange(lease), this.log);
    this.running = this.loop().finally(() => unfollow?.());
  }

  /** Stops campaigning; a leader stops leading and releases the lease. */
  async stop(): Promise<void> {
    this.abort.abort();
    // Releasing needs etcd; a shutdown while it is away does not wait for it past the renew deadline.
    if (!this.running) return;
    const stopped = new AbortController();
    await Promise.race([this.running, sleep(this.clock, this.config.renewDeadlineMs, stopped.signal)]);
    // The deadline's timer would otherwise keep the process alive for the rest of its wait.
    stopped.abort();
  }

  /** leaderelection.HealthzAdaptor: a leader that has not renewed for well past its lease is unhealthy. */
  problem(): string | null {
    if (!this.leading) return null;
    const since = this.clock.now() - this.observedAt;
    if (since <= this.config.leaseDurationMs + MAX_TOLERABLE_EXPIRED_LEASE_MS) return null;
    return `failed election to renew leadership on lease ${this.lock.name}`;
  }

  private async loop(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      if (!(await this.acquire(signal))) break;
      this.leading = true;
      this.status?.set({ name: this.lock.name }, 1);
      this.log(`successfully acquired lease ${this.lock.describe()} as ${this.config.identity}`);
      this.callbacks.startedLeading();
      await this.renew(signal);
      this.leading = false;
      this.status?.set({ name: this.lock.name }, 0);
      this.callbacks.stoppedLeading();
      if (signal.aborted) {
        await this.release();
        break;
      }
      this.log(`failed to renew lease ${this.lock.describe()}: leadership lost`);
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if (await this.attempt(this.config.renewDeadlineMs)) return true;
      const jittered = this.config.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR);
      const untilExpiry = this.expiresAt() - this.clock.now();
      await sleep(this.clock, untilExpiry > 0 ? Math.min(jittered, untilExpiry) : jittered, signal);
    }
    return false;
  }

  /** When another's lease, as last observed, runs out for this candidate (0 when no one else holds it). */
  private expiresAt(): number {
    if (!this.observed || this.observed.holderIdentity === '' || this.observed.holderIdentity === this.config.identity) return 0;
    return this.observedAt + this.observed.leaseDurationSeconds * 1000;
  }

  /** A version of the lease seen by watch: a change of the record restarts its lease duration now. */
  private noteChange(lease: KubeObject): void {
    if (this.leading) return;
    const record = recordOf(lease);
    if (!this.observed || JSON.stringify(record) !== JSON.stringify(this.observed)) this.observe(record, this.clock.now());
  }

  /** Renews every retry period until a renewal fails to land within the renew deadline, or until stopped. */
  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(this.clock, this.config.retryPeriodMs, signal);
      if (signal.aborted) return;
      const deadline = this.clock.now() + this.config.renewDeadlineMs;
      let renewed = false;
      while (!signal.aborted && this.clock.now() < deadline) {
        if (await this.attempt(deadline - this.clock.now())) {
          renewed = true;
          break;
        }
        await sleep(this.clock, Math.min(this.config.retryPeriodMs, Math.max(0, deadline - this.clock.now())), signal);
      }
      if (!renewed && !signal.aborted) return;
    }
  }

  /** tryAcquireOrRenew, given at most `timeoutMs`; false on any failure. */
  private async attempt(timeoutMs: number): Promise<boolean> {
    let cancel = (): void => undefined;
    const timedOut = new Promise<boolean>((resolve) => (cancel = this.clock.after(Math.max(0, timeoutMs), () => resolve(false))));
    try {
      return await Promise.race([
        this.tryAcquireOrRenew().catch((err: unknown) => {
          this.log(`error acquiring or renewing lease ${this.lock.describe()}`, err);
          return false;
        }),
        timedOut,
      ]);
    } finally {
      cancel();
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const mine: LeaderElectionRecord = {
      holderIdentity: this.config.identity,
      leaseDurationSeconds: Math.round(this.config.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    const lease = await this.lock.get();
    if (!lease) {
      await this.lock.create(mine);
      this.observe(mine, now);
      return true;
    }
    const current = recordOf(lease);
    if (!this.observed || JSON.stringify(current) !== JSON.stringify(this.observed)) this.observe(current, now);
    const heldByOther = current.holderIdentity !== '' && current.holderIdentity !== this.config.identity;
    if (heldByOther && this.observedAt + current.leaseDurationSeconds * 1000 > now) return false;
    if (current.holderIdentity === this.config.identity) {
      mine.acquireTime = current.acquireTime || mine.acquireTime;
      mine.leaseTransitions = current.leaseTransitions;
    } else {
      mine.leaseTransitions = current.leaseTransitions + 1;
    }
    await this.lock.update(lease, mine);
    this.observe(mine, now);
    return true;
  }

  private observe(record: LeaderElectionRecord, at: number): void {
    this.observed = record;
    this.observedAt = at;
  }

  /** Gives the lease up: no holder, a one-second duration, the transitions kept (client-go's release). */
  private async release(): Promise<void> {
    try {
      const lease = await this.lock.get();
      if (!lease || recordOf(lease).holderIdentity !== this.config.identity) return;
      const now = microTime(this.clock.now());
      await this.lock.update(lease, {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: recordOf(lease).leaseTransitions,
      });
    } catch (err) {
      this.log(`failed to release lease ${this.lock.describe()}`, err);
    }
  }
}
