import type { ObjectStore } from '../registry/types';
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isStatusError } from '../api/errors';
import { systemReadContext, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { isPlainObject, type KubeObject } from '../api/types';
import type { ServedCrds } from './crd-controller';
import type { Controller } from './runtime/controller';
import { systemClock, type Clock } from './runtime/clock';
import type { ControllerLog } from './runtime/informer';
import { microTime, parseMicroTime } from './runtime/micro-time';

/** kube's IdentityLeaseComponentLabelKey and the identity kube-apiserver gives itself. */
export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
export const IDENTITY_VALUE = 'kube-apiserver';
/** Which CRDs (uid → generation, as JSON) the replica holding the lease serves. */
export const SERVED_CRDS_ANNOTATION = 'kapi.io/served-crds';
const HOSTNAME_LABEL = 'kubernetes.io/hostname';
const SYSTEM_NAMESPACE = 'kube-system';

export interface IdentityTiming {
  leaseDurationSeconds: number;
  renewIntervalMs: number;
}

/**
 * kapi's identity leases are short (kube-apiserver's last an hour, renewed every 10 s): the leader
 * waits for every live replica to serve a CRD before it is Established, and a replica killed
 * outright stops counting once its lease runs out.
 */
export const IDENTITY_TIMING: IdentityTiming = { leaseDurationSeconds: 20, renewIntervalMs: 5000 };

/**
 * kube-apiserver's identity lease name: `kube-apiserver-` and the base32 of a SHA-256. kube hashes
 * the hostname; kapi hashes the hostname with the listening address, so that replicas on one host
 * (tests, compose) are told apart while a restarted replica keeps its name.
 */
export function identityLeaseName(host: string, listenAddress: string): string {
  const digest = createHash('sha256').update(`${host}|${listenAddress}`).digest().subarray(0, 16);
  return `${IDENTITY_VALUE}-${base32(digest).toLowerCase()}`;
}

function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** A replica as its identity lease shows it. */
export interface Replica {
  leaseName: string;
  live: boolean;
  served: ServedCrds;
}

export function replicaOf(lease: KubeObject, now: number): Replica {
  const spec = isPlainObject(lease.spec) ? lease.spec : {};
  const renewed = parseMicroTime(spec.renewTime);
  const duration = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0;
  let served = new Map<string, number>();
  try {
    const raw = JSON.parse(lease.metadata.annotations?.[SERVED_CRDS_ANNOTATION] ?? '{}') as unknown;
    if (isPlainObject(raw)) served = new Map(Object.entries(raw).filter((e): e is [string, number] => typeof e[1] === 'number'));
  } catch {
    // A replica that wrote nothing readable serves nothing we can count on.
  }
  return { leaseName: lease.metadata.name ?? '', live: renewed !== null && renewed + duration * 1000 > now, served };
}

/**
 * kube-apiserver's identity lease controller and its garbage collector, with one addition: the lease
 * records which CRDs this replica serves, so that the leader reports a CRD Established only once
 * every live replica serves it. The lease is renewed every few seconds and at once when the served
 * set changes; expired identity leases of other replicas are deleted; a clean shutdown deletes the
 * replica's own.
 */
export class ApiServerIdentity implements Controller {
  readonly name = 'poststarthook/start-kube-apiserver-identity-lease-controller';
  readonly leaseName: string;
  readonly holderIdentity: string;
  private served: ServedCrds = new Map();
  private lastRenewed: number | null = null;
  private cancelTimer: (() => void) | null = null;
  private renewing: Promise<void> | null = null;
  private again = false;
  private running = false;
  private ticks = 0;

  constructor(
    private readonly leases: ObjectStore,
    listenAddress: string,
    private readonly log: ControllerLog,
    private readonly timing: IdentityTiming = IDENTITY_TIMING,
    private readonly clock: Clock = systemClock,
  ) {
    this.leaseName = identityLeaseName(hostname(), listenAddress);
    this.holderIdentity = `${this.leaseName}_${randomUUID()}`;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.renew();
    this.schedule();
  }

  stop(): void {
    this.running = false;
    this.cancelTimer?.();
    this.cancelTimer = null;
  }

  /** Deletes this replica's lease, so that the others stop waiting for it at once. */
  async remove(): Promise<void> {
    this.stop();
    try {
      await this.leases.delete(systemContext({ namespace: SYSTEM_NAMESPACE }, SERVER_OWN_WRITE), this.leaseName, { dryRun: false });
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) this.log(`could not delete identity lease ${this.leaseName}`, err);
    }
  }

  problem(): string | null {
    if (this.lastRenewed === null) return 'identity lease not written yet';
    const ago = this.clock.now() - this.lastRenewed;
    return ago > this.timing.leaseDurationSeconds * 1000 ? `identity lease ${this.leaseName} not renewed for ${Math.round(ago / 1000)}s` : null;
  }

  /** What this replica serves changed: the lease says so now rather than at the next renewal. */
  setServed(served: ServedCrds): void {
    this.served = new Map(served);
    if (this.running) void this.renew();
  }

  private schedule(): void {
    if (!this.running) return;
    this.cancelTimer = this.clock.after(this.timing.renewIntervalMs, () => {
      void this.renew()
        .then(() => {
          if (++this.ticks % 6 === 0) return this.collectExpired();
        })
        .catch((err: unknown) => this.log('identity lease garbage collection failed', err))
        .finally(() => this.schedule());
    });
  }

  /** One renewal at a time; a change during one asks for another right after. */
  private renew(): Promise<void> {
    if (this.renewing) {
      this.again = true;
      return this.renewing;
    }
    this.renewing = (async () => {
      do {
        this.again = false;
        try {
          await this.write();
          this.lastRenewed = this.clock.now();
        } catch (err) {
          this.log(`failed to renew identity lease ${this.leaseName}`, err);
        }
      } while (this.again && this.running);
      this.renewing = null;
    })();
    return this.renewing;
  }

  private leaseBody(current: KubeObject | null): KubeObject {
    const now = microTime(this.clock.now());
    const spec = current && isPlainObject(current.spec) ? current.spec : {};
    const mine = spec.holderIdentity === this.holderIdentity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...(current?.metadata ?? { name: this.leaseName, namespace: SYSTEM_NAMESPACE }),
        labels: { ...(current?.metadata.labels ?? {}), [IDENTITY_LABEL]: IDENTITY_VALUE, [HOSTNAME_LABEL]: hostname() },
        annotations: { ...(current?.metadata.annotations ?? {}), [SERVED_CRDS_ANNOTATION]: JSON.stringify(Object.fromEntries(this.served)) },
      },
      spec: {
        holderIdentity: this.holderIdentity,
        leaseDurationSeconds: this.timing.leaseDurationSeconds,
        acquireTime: mine && typeof spec.acquireTime === 'string' ? spec.acquireTime : now,
        renewTime: now,
      },
    };
  }

  private async write(): Promise<void> {
    let current: KubeObject | null = null;
    try {
      current = await this.leases.get(systemReadContext(SYSTEM_NAMESPACE), this.leaseName, { resourceVersion: '', match: '' });
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
    if (!current) {
      await this.leases.create(systemContext({ namespace: SYSTEM_NAMESPACE }, SERVER_OWN_WRITE), this.leaseBody(null), { dryRun: false });
      return;
    }
    await this.leases.update(systemContext({ namespace: SYSTEM_NAMESPACE }, SERVER_OWN_WRITE), this.leaseName, this.leaseBody(current), { dryRun: false });
  }

  /** apiserverleasegc: identity leases that have expired are deleted (guarded by their resourceVersion). */
  private async collectExpired(): Promise<void> {
    const list = await this.leases.list(systemReadContext(SYSTEM_NAMESPACE), { resourceVersion: '', match: '', predicate: everyIdentityLease });
    const now = this.clock.now();
    for (const lease of list.items) {
      if (lease.metadata.name === this.leaseName || replicaOf(lease, now).live) continue;
      try {
        await this.leases.delete(systemContext({ namespace: SYSTEM_NAMESPACE }, SERVER_OWN_WRITE), lease.metadata.name!, {
          dryRun: false,
          preconditions: { resourceVersion: lease.metadata.resourceVersion },
        });
      } catch (err) {
        if (!(isStatusError(err) && (err.code === 404 || err.code === 409))) throw err;
      }
    }
  }
}

/** Identity leases, by their label. */
export const everyIdentityLease = {
  matches: (obj: KubeObject): boolean => obj.metadata.labels?.[IDENTITY_LABEL] === IDENTITY_VALUE,
  empty: false,
};
