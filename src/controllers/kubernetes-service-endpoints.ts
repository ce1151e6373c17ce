import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { KubeObject } from '../api/types';
import type { GenericStore } from '../registry/generic-store';
import { nowTimestamp } from '../registry/time';
import { everything, type Storage } from '../storage/interfaces';
import { isStorageError } from '../storage/storage-error';
import type { Controller } from './runtime/controller';
import type { ControllerLog } from './runtime/informer';
import { PeriodicController } from './runtime/periodic';
import { DEFAULT_NAMESPACE, KUBERNETES_SERVICE, RECONCILE_INTERVAL_MS, reconcileKubernetesService } from './kubernetes-service';

/** DefaultEndpointReconcilerTTL: a replica whose lease is older than this is no longer listed. */
export const MASTER_LEASE_TTL_MS = 15_000;
const RENEW_ANNOTATION = 'kapi.io/renew-time';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';

/**
 * --advertise-address when given; else the bind address unless it is unspecified; else the host's
 * first non-loopback IPv4 address. kube's ResolveBindAddress also replaces a loopback bind address
 * (with the default route's interface address); kapi keeps it, so that replicas on 127.0.0.1 list it.
 */
export function effectiveAdvertiseAddress(advertise: string, bind: string): string {
  if (advertise) return advertise;
  if (bind && bind !== '0.0.0.0' && bind !== '::' && isIP(bind)) return bind;
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** An object written straight to storage: the stored metadata kept, what identifies it filled in when new. */
function stored(current: KubeObject | null, desired: KubeObject): KubeObject {
  const metadata = current ? { ...current.metadata } : { ...desired.metadata, uid: randomUUID(), creationTimestamp: nowTimestamp() };
  if (desired.metadata.labels) metadata.labels = { ...(current?.metadata.labels ?? {}), ...desired.metadata.labels };
  if (desired.metadata.annotations) metadata.annotations = { ...(current?.metadata.annotations ?? {}), ...desired.metadata.annotations };
  return { ...desired, metadata };
}

/**
 * kube-apiserver's lease endpoint reconciler (pkg/controlplane/reconcilers/lease.go), on every
 * replica: each keeps a lease under <prefix>/masterleases/<ip>, renewed every interval and
 * counted for the TTL; the `default/kubernetes` Endpoints and EndpointSlice list the addresses of
 * the live leases and this replica's secure port. They are written to storage directly, as the
 * server's own objects past validation: an advertise address on loopback (a test bind on
 * 127.0.0.1) is refused by Endpoints validation, which kube-apiserver's reconciler (a client of
 * the API) does not get past; kapi lists it.
 */
export class KubernetesEndpointsReconciler extends PeriodicController {
  readonly name = 'poststarthook/bootstrap-controller';

  constructor(
    private readonly storage: Storage,
    private readonly leasePrefix: string,
    private readonly services: GenericStore,
    private readonly endpoints: GenericStore,
    private readonly slices: GenericStore,
    private readonly address: string,
    private readonly clusterIp: string,
    private readonly port: number,
    log: ControllerLog,
  ) {
    super(RECONCILE_INTERVAL_MS, log);
  }

  protected async pass(): Promise<void> {
    await reconcileKubernetesService(this.services, this.clusterIp, this.port);
    await this.renewLease();
    await this.writeEndpoints();
  }

  /**
   * RemoveEndpoints on a clean shutdown: this replica's lease goes (unless a replica on the same
   * address with another port renewed it last) and the endpoints are written without it.
   */
  async remove(): Promise<void> {
    this.stop();
    const key = `${this.leasePrefix}${this.address}`;
    try {
      const lease = await this.storage.get(key, { resourceVersion: '', match: '' });
      const ports = Array.isArray(lease.subsets) ? (lease.subsets as { ports?: { port?: number }[] }[]).flatMap((s) => s.ports ?? []) : [];
      if (!ports.some((p) => p.port === this.port)) return;
      await this.storage.delete(key, { preconditions: { resourceVersion: lease.metadata.resourceVersion } });
    } catch (err) {
      if (isStorageError(err, 'KeyNotFound') || isStorageError(err, 'Conflict')) return;
      throw err;
    }
    await this.writeEndpoints();
  }

  private async writeEndpoints(): Promise<void> {
    const addresses = await this.liveAddresses();
    // As kube's doReconcile: no live lease is never a reason to erase every endpoint.
    if (addresses.length === 0) return;
    await this.write(this.endpoints.key(DEFAULT_NAMESPACE, KUBERNETES_SERVICE), {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: KUBERNETES_SERVICE, namespace: DEFAULT_NAMESPACE, labels: { [SKIP_MIRROR_LABEL]: 'true' } },
      subsets: [{ addresses: addresses.map((ip) => ({ ip })), ports: [{ name: 'https', port: this.port, protocol: 'TCP' }] }],
    });
    await this.write(this.slices.key(DEFAULT_NAMESPACE, KUBERNETES_SERVICE), {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: KUBERNETES_SERVICE, namespace: DEFAULT_NAMESPACE, labels: { [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE } },
      addressType: isIP(this.address) === 6 ? 'IPv6' : 'IPv4',
      endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [{ name: 'https', port: this.port, protocol: 'TCP' }],
    });
  }

  private async renewLease(): Promise<void> {
    await this.storage.guaranteedUpdate(
      `${this.leasePrefix}${this.address}`,
      async (current) =>
        stored(current, {
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name: this.address, annotations: { [RENEW_ANNOTATION]: new Date().toISOString() } },
          subsets: [{ addresses: [{ ip: this.address }], ports: [{ port: this.port, protocol: 'TCP' }] }],
        }),
      { ignoreNotFound: true },
    );
  }

  /** The addresses of the live leases, sorted; expired ones are deleted (guarded by their revision). */
  private async liveAddresses(): Promise<string[]> {
    const { items } = await this.storage.list(this.leasePrefix, { resourceVersion: '', match: '', predicate: everything });
    const live: string[] = [];
    for (const lease of items) {
      const renewed = Date.parse(lease.metadata.annotations?.[RENEW_ANNOTATION] ?? '');
      const ip = lease.metadata.name ?? '';
      if (Number.isFinite(renewed) && renewed + MASTER_LEASE_TTL_MS > Date.now()) {
        if (isIP(ip)) live.push(ip);
        continue;
      }
      try {
        await this.storage.delete(`${this.leasePrefix}${ip}`, { preconditions: { resourceVersion: lease.metadata.resourceVersion } });
      } catch (err) {
        if (!isStorageError(err, 'KeyNotFound') && !isStorageError(err, 'Conflict')) throw err;
      }
    }
    return live.sort();
  }

  private async write(key: string, desired: KubeObject): Promise<void> {
    await this.storage.guaranteedUpdate(key, async (current) => stored(current, desired), { ignoreNotFound: true });
  }
}

/**
 * The reconciler starts once the secure port is known (it listens after the controllers start);
 * until then it is not running and reports nothing.
 */
export class DeferredController implements Controller {
  private inner: Controller | null = null;
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly make: Promise<Controller>,
    private readonly log: ControllerLog,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    void this.make
      .then(async (controller) => {
        if (this.stopped) return;
        this.inner = controller;
        await controller.start();
      })
      .catch((err: unknown) => this.log(`${this.name} could not start`, err));
  }

  stop(): void {
    this.stopped = true;
    this.inner?.stop();
  }

  problem(): string | null {
    return this.inner?.problem() ?? null;
  }
}
