import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { EndpointAddress, EndpointPort as CorePort, Endpoints, Service } from '../../generated/types/core/v1';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../generated/types/discovery/v1';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { familyOf, MANAGED_BY_LABEL, SERVICE_NAME_LABEL, SKIP_MIRROR_LABEL, TRIGGER_TIME_ANNOTATION } from './pod-endpoints';
import { planSlices } from './slice-plan';

export const MIRRORING_CONTROLLER = 'endpointslicemirroring-controller.k8s.io';
/** --mirroring-max-endpoints-per-subset's default: a subset's addresses beyond it are not mirrored. */
export const MAX_MIRRORED_PER_SUBSET = 1000;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const RETRY_MS = 1000;

/** addressToEndpoint: the address as its family writes it; not an IP, not mirrored. */
function addressToEndpoint(address: EndpointAddress, ready: boolean): { endpoint: Endpoint; addressType: 'IPv4' | 'IPv6' } | null {
  const family = familyOf(address.ip ?? '');
  if (!family) return null;
  const endpoint: Endpoint = { addresses: [address.ip!], conditions: { ready } };
  if (address.hostname) endpoint.hostname = address.hostname;
  if (address.targetRef) endpoint.targetRef = address.targetRef;
  if (address.nodeName) endpoint.nodeName = address.nodeName;
  return { endpoint, addressType: family };
}

const slicePorts = (ports: CorePort[] | undefined): EndpointPort[] =>
  (ports ?? []).map((p) => ({ name: p.name ?? '', protocol: p.protocol, port: p.port, ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}) }));

/** newEndpointSlice's metadata: the Endpoints' labels and annotations (less the trigger time and kubectl's), then the mirroring labels. */
function mirroredMeta(endpoints: Endpoints): { labels: Record<string, string>; annotations: Record<string, string> } {
  const annotations = { ...(endpoints.metadata.annotations ?? {}) };
  delete annotations[TRIGGER_TIME_ANNOTATION];
  delete annotations[LAST_APPLIED];
  const labels = { ...(endpoints.metadata.labels ?? {}), [SERVICE_NAME_LABEL]: endpoints.metadata.name!, [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER };
  return { labels, annotations };
}

/**
 * kube-controller-manager's endpointslice-mirroring controller (pkg/controller/endpointslicemirroring):
 * the Endpoints of a Service without a selector (written by hand or by another controller) are
 * mirrored to EndpointSlices, one group per address type and subset ports, owned by the Endpoints;
 * Endpoints labelled `endpointslice.kubernetes.io/skip-mirror: "true"`, or whose service selects
 * pods, are not, and their mirrored slices go.
 */
export class EndpointSliceMirroringController extends QueueController {
  readonly name = 'endpointslice-mirroring-controller';
  protected readonly queue: WorkQueue;
  private readonly services: CachedInformer;
  private readonly endpoints: CachedInformer;
  private readonly slices: CachedInformer;

  constructor(private readonly deps: ControllerDeps) {
    super();
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.log(`${this.name}: endpoints ${key} failed`, err),
      RETRY_MS,
      deps.clock,
    );
    const enqueue = (obj: KubeObject): void => this.queue.add(objectKey(obj));
    const handlers = { added: enqueue, updated: (_: KubeObject, obj: KubeObject) => enqueue(obj), deleted: enqueue };
    this.services = deps.informers.informer(deps.store('', 'v1', 'services'), handlers, { name: 'services' });
    this.endpoints = deps.informers.informer(deps.store('', 'v1', 'endpoints'), handlers, { name: 'endpoints' });
    const sliceChanged = (slice: KubeObject): void => {
      const name = slice.metadata.labels?.[SERVICE_NAME_LABEL];
      if (name && slice.metadata.labels?.[MANAGED_BY_LABEL] === MIRRORING_CONTROLLER) this.queue.add(`${slice.metadata.namespace}/${name}`);
    };
    this.slices = deps.informers.informer(
      deps.store('discovery.k8s.io', 'v1', 'endpointslices'),
      { added: sliceChanged, updated: (_, slice) => sliceChanged(slice), deleted: sliceChanged },
      { name: 'endpointslices' },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.services, this.endpoints, this.slices];
  }

  private async sync(key: string): Promise<boolean> {
    const [namespace, name] = key.split('/');
    const existing = (this.slices.list() as EndpointSlice[]).filter(
      (s) =>
        s.metadata.namespace === namespace &&
        s.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
        s.metadata.labels?.[MANAGED_BY_LABEL] === MIRRORING_CONTROLLER,
    );
    const endpoints = this.endpoints.get(key) as Endpoints | undefined;
    const service = this.services.get(key) as Service | undefined;
    const mirrored =
      endpoints &&
      service &&
      Object.keys(service.spec?.selector ?? {}).length === 0 &&
      endpoints.metadata.labels?.[SKIP_MIRROR_LABEL] !== 'true' &&
      endpoints.metadata.annotations?.[LEADER_ANNOTATION] === undefined;
    if (!mirrored) {
      await Promise.all(existing.map((slice) => this.remove(slice)));
      return true;
    }
    const desired = new Map<string, { addressType: 'IPv4' | 'IPv6'; ports: EndpointPort[]; endpoints: Endpoint[] }>();
    for (const subset of endpoints.subsets ?? []) {
      const ports = slicePorts(subset.ports);
      const addresses = [...(subset.addresses ?? []).map((a) => [a, true] as const), ...(subset.notReadyAddresses ?? []).map((a) => [a, false] as const)];
      for (const [address, ready] of addresses.slice(0, MAX_MIRRORED_PER_SUBSET)) {
        const mirroredAddress = addressToEndpoint(address, ready);
        if (!mirroredAddress) continue;
        const group = JSON.stringify([mirroredAddress.addressType, ports]);
        const entry = desired.get(group) ?? { addressType: mirroredAddress.addressType, ports, endpoints: [] };
        desired.set(group, entry);
        entry.endpoints.push(mirroredAddress.endpoint);
      }
    }
    const meta = mirroredMeta(endpoints);
    const writes: Promise<unknown>[] = [];
    const byGroup = new Map<string, EndpointSlice[]>();
    for (const slice of existing) {
      const owned = (slice.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === endpoints.metadata.uid);
      if (!owned) writes.push(this.remove(slice));
      else {
        const group = JSON.stringify([slice.addressType, slice.ports ?? []]);
        byGroup.set(group, [...(byGroup.get(group) ?? []), slice]);
      }
    }
    for (const [group, slices] of byGroup) {
      const plan = planSlices(slices, desired.get(group)?.endpoints ?? [], MAX_MIRRORED_PER_SUBSET);
      const written = new Set([...plan.update.map((u) => u.slice), ...plan.delete]);
      for (const { slice, endpoints: list } of plan.update) writes.push(this.update(slice, meta, list));
      for (const list of plan.create) writes.push(this.create(endpoints, meta, desired.get(group)!, list));
      for (const slice of plan.delete) writes.push(this.remove(slice));
      for (const slice of slices) {
        const stale = !jsonEqual(slice.metadata.labels ?? {}, meta.labels) || !jsonEqual(slice.metadata.annotations ?? {}, meta.annotations);
        if (!written.has(slice) && stale) writes.push(this.update(slice, meta, slice.endpoints ?? []));
      }
      desired.delete(group);
    }
    for (const group of desired.values()) {
      for (const list of planSlices([], group.endpoints, MAX_MIRRORED_PER_SUBSET).create) writes.push(this.create(endpoints, meta, group, list));
    }
    await Promise.all(writes);
    return true;
  }

  private async create(
    endpoints: Endpoints,
    meta: { labels: Record<string, string>; annotations: Record<string, string> },
    group: { addressType: 'IPv4' | 'IPv6'; ports: EndpointPort[] },
    list: Endpoint[],
  ): Promise<void> {
    const slice: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        generateName: `${endpoints.metadata.name}-`,
        namespace: endpoints.metadata.namespace,
        labels: meta.labels,
        ...(Object.keys(meta.annotations).length ? { annotations: meta.annotations } : {}),
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Endpoints', name: endpoints.metadata.name!, uid: endpoints.metadata.uid!, controller: true, blockOwnerDeletion: true },
        ],
      },
      addressType: group.addressType,
      endpoints: list,
      ports: group.ports,
    };
    await this.store.create(this.deps.admitted(endpoints.metadata.namespace!), slice, { dryRun: false });
  }

  private async update(slice: EndpointSlice, meta: { labels: Record<string, string>; annotations: Record<string, string> }, list: Endpoint[]): Promise<void> {
    const metadata = { ...slice.metadata, labels: meta.labels, annotations: meta.annotations };
    if (Object.keys(meta.annotations).length === 0) delete (metadata as { annotations?: unknown }).annotations;
    await this.store.update(this.deps.admitted(slice.metadata.namespace!), slice.metadata.name!, { ...slice, metadata, endpoints: list }, { dryRun: false });
  }

  private async remove(slice: EndpointSlice): Promise<void> {
    try {
      await this.store.delete(this.deps.admitted(slice.metadata.namespace!), slice.metadata.name!, { dryRun: false });
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) throw err;
    }
  }

  private get store() {
    return this.deps.store('discovery.k8s.io', 'v1', 'endpointslices');
  }
}
