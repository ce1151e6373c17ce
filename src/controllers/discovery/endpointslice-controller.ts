import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { Node, Pod, Service } from '../../generated/types/core/v1';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../generated/types/discovery/v1';
import { isPodReady } from '../pods/pod-conditions';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { CachedInformer } from '../runtime/informer';
import {
  familyOf,
  findPort,
  HEADLESS_LABEL,
  hasClusterIp,
  MANAGED_BY_LABEL,
  podIps,
  SERVICE_NAME_LABEL,
  selectsPods,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  TRIGGER_TIME_ANNOTATION,
  ZONE_LABEL,
  type IpFamily,
} from './pod-endpoints';
import { ServicePodsController } from './service-pods-controller';
import { planSlices } from './slice-plan';
import { TriggerTimeTracker } from './trigger-time';

export const ENDPOINTSLICE_CONTROLLER = 'endpointslice-controller.k8s.io';

/** getEndpointPorts: the service's ports the pod resolves, in the service's order. */
function endpointPorts(service: Service, pod: Pod): EndpointPort[] {
  return (service.spec?.ports ?? []).flatMap((port): EndpointPort[] => {
    const number = findPort(pod, port);
    if (number === null) return [];
    return [{ name: port.name ?? '', protocol: port.protocol ?? 'TCP', port: number, ...(port.appProtocol ? { appProtocol: port.appProtocol } : {}) }];
  });
}

/** podToEndpoint: ready only when serving and not terminating, unless the service publishes unready addresses. */
function podEndpoint(service: Service, pod: Pod, addresses: string[], node: Node | undefined): Endpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata.deletionTimestamp;
  const endpoint: Endpoint = {
    addresses,
    conditions: { ready: service.spec?.publishNotReadyAddresses === true || (serving && !terminating), serving, terminating },
  };
  if (shouldSetHostname(pod, service)) endpoint.hostname = pod.spec!.hostname;
  endpoint.targetRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
  if (pod.spec?.nodeName) endpoint.nodeName = pod.spec.nodeName;
  const zone = node?.metadata.labels?.[ZONE_LABEL];
  if (zone) endpoint.zone = zone;
  return endpoint;
}

/** getAddressTypesForService: the service's IP families; a service without any, by its cluster IP, else IPv4. */
function addressTypes(service: Service): IpFamily[] {
  const families = (service.spec?.ipFamilies ?? []).filter((f): f is IpFamily => f === 'IPv4' || f === 'IPv6');
  if (families.length) return families;
  return [(hasClusterIp(service) && familyOf(service.spec!.clusterIP!)) || 'IPv4'];
}

/** setEndpointSliceLabels: the service's labels but the reserved ones, then those that tie the slice to it. */
function sliceLabels(service: Service): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(service.metadata.labels ?? {})) {
    if (k !== SERVICE_NAME_LABEL && k !== MANAGED_BY_LABEL && k !== HEADLESS_LABEL) labels[k] = v;
  }
  if (!hasClusterIp(service)) labels[HEADLESS_LABEL] = '';
  labels[SERVICE_NAME_LABEL] = service.metadata.name!;
  labels[MANAGED_BY_LABEL] = ENDPOINTSLICE_CONTROLLER;
  return labels;
}

const ownedBy = (slice: KubeObject, service: Service): boolean =>
  (slice.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === service.metadata.uid);

const groupKey = (addressType: string, ports: EndpointPort[]): string => JSON.stringify([addressType, ports]);

/**
 * kube-controller-manager's endpointslice controller (pkg/controller/endpointslice and
 * k8s.io/endpointslice's reconciler): each Service with a selector gets EndpointSlices of its
 * pods, one group of slices per address type and set of resolved ports, at most 100 endpoints a
 * slice; a service with none gets one empty placeholder slice. The slices are named from
 * `<service>-`, owned by the service and labelled as kube labels them.
 */
export class EndpointSliceController extends ServicePodsController {
  readonly name = 'endpointslice-controller';
  private readonly slices: CachedInformer;
  private readonly nodes: CachedInformer;
  private readonly triggerTimes = new TriggerTimeTracker();

  constructor(deps: ControllerDeps) {
    super(deps);
    const sliceChanged = (slice: KubeObject): void => {
      const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
      if (service && slice.metadata.labels?.[MANAGED_BY_LABEL] === ENDPOINTSLICE_CONTROLLER) this.queue.add(`${slice.metadata.namespace}/${service}`);
    };
    this.slices = deps.informers.informer(
      deps.store('discovery.k8s.io', 'v1', 'endpointslices'), // A slice changed or deleted by someone else is put back as it should be.
      { updated: (_, slice) => sliceChanged(slice), deleted: sliceChanged },
      { name: 'endpointslices' },
    );
    // An endpoint's zone is its node's: a node whose zone changes changes the endpoints on it.
    const nodeChanged = (old: KubeObject | null, node: KubeObject): void => {
      if (old?.metadata.labels?.[ZONE_LABEL] === node.metadata.labels?.[ZONE_LABEL]) return;
      for (const service of this.services.list() as Service[])
        if (selectsPods(service)) this.queue.add(`${service.metadata.namespace}/${service.metadata.name}`);
    };
    this.nodes = deps.informers.informer(deps.store('', 'v1', 'nodes'), { added: (node) => nodeChanged(null, node), updated: nodeChanged }, { name: 'nodes' });
  }

  protected get informers(): CachedInformer[] {
    return [this.nodes, this.services, this.pods, this.slices];
  }

  protected async sync(key: string): Promise<boolean> {
    const [namespace, name] = key.split('/');
    const service = this.services.get(key) as Service | undefined;
    if (!service) {
      // Its slices are its dependents: the garbage collector takes them.
      this.triggerTimes.forget(namespace, name);
      return true;
    }
    if (!selectsPods(service)) return true;
    const pods = this.podsSelectedBy(service);
    const triggerTime = this.triggerTimes.compute(service, pods);
    const types = addressTypes(service);
    const desired = new Map<string, { addressType: IpFamily; ports: EndpointPort[]; endpoints: Endpoint[] }>();
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const ports = endpointPorts(service, pod);
      const node = pod.spec?.nodeName ? (this.nodes.get(pod.spec.nodeName) as Node | undefined) : undefined;
      for (const addressType of types) {
        const addresses = podIps(pod).filter((ip) => familyOf(ip) === addressType);
        if (addresses.length === 0) continue;
        const group = groupKey(addressType, ports);
        const entry = desired.get(group) ?? { addressType, ports, endpoints: [] };
        desired.set(group, entry);
        entry.endpoints.push(podEndpoint(service, pod, addresses, node));
      }
    }
    const existing = (this.slices.list() as EndpointSlice[]).filter(
      (s) =>
        s.metadata.namespace === namespace &&
        s.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
        s.metadata.labels?.[MANAGED_BY_LABEL] === ENDPOINTSLICE_CONTROLLER &&
        !s.metadata.deletionTimestamp,
    );
    const labels = sliceLabels(service);
    const anyEndpoints = desired.size > 0;
    const writes: Promise<unknown>[] = [];
    let slicesAfter = 0;
    const byGroup = new Map<string, EndpointSlice[]>();
    for (const slice of existing) {
      // A slice not of this service (a namesake's), of a family it no longer has, or an empty placeholder once there are endpoints.
      if (!ownedBy(slice, service) || !types.includes(slice.addressType as IpFamily) || (anyEndpoints && !(slice.endpoints ?? []).length)) {
        writes.push(this.remove(slice));
        continue;
      }
      const group = groupKey(slice.addressType!, slice.ports ?? []);
      byGroup.set(group, [...(byGroup.get(group) ?? []), slice]);
    }
    for (const [group, slices] of byGroup) {
      const plan = planSlices(slices, desired.get(group)?.endpoints ?? []);
      const written = new Set([...plan.update.map((u) => u.slice), ...plan.delete]);
      for (const { slice, endpoints } of plan.update) writes.push(this.update(slice, labels, endpoints, triggerTime));
      for (const endpoints of plan.create) writes.push(this.create(service, labels, desired.get(group)!, endpoints, triggerTime));
      for (const slice of plan.delete) writes.push(this.remove(slice));
      // Unchanged endpoints, but the service's labels may have moved.
      for (const slice of slices)
        if (!written.has(slice) && !jsonEqual(slice.metadata.labels, labels)) writes.push(this.update(slice, labels, slice.endpoints ?? [], null));
      slicesAfter += slices.length - plan.delete.length + plan.create.length;
      desired.delete(group);
    }
    for (const group of desired.values()) {
      for (const endpoints of planSlices([], group.endpoints).create) {
        writes.push(this.create(service, labels, group, endpoints, triggerTime));
        slicesAfter++;
      }
    }
    // The placeholder: a service whose pods give no endpoints still has one (empty) slice.
    if (slicesAfter === 0) writes.push(this.create(service, labels, { addressType: types[0], ports: [] }, [], triggerTime));
    await Promise.all(writes);
    return true;
  }

  private async create(
    service: Service,
    labels: Record<string, string>,
    group: { addressType: IpFamily; ports: EndpointPort[] },
    endpoints: Endpoint[],
    triggerTime: string | null,
  ): Promise<void> {
    const slice: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        generateName: `${service.metadata.name}-`,
        namespace: service.metadata.namespace,
        labels,
        ...(triggerTime ? { annotations: { [TRIGGER_TIME_ANNOTATION]: triggerTime } } : {}),
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Service', name: service.metadata.name!, uid: service.metadata.uid!, controller: true, blockOwnerDeletion: true },
        ],
      },
      addressType: group.addressType,
      endpoints,
      ports: group.ports,
    };
    await this.store.create(this.deps.admitted(service.metadata.namespace!), slice, { dryRun: false });
  }

  private async update(slice: EndpointSlice, labels: Record<string, string>, endpoints: Endpoint[], triggerTime: string | null): Promise<void> {
    const annotations = { ...(slice.metadata.annotations ?? {}) };
    if (triggerTime) annotations[TRIGGER_TIME_ANNOTATION] = triggerTime;
    const next: EndpointSlice = { ...slice, metadata: { ...slice.metadata, labels, annotations }, endpoints };
    if (Object.keys(annotations).length === 0) delete next.metadata.annotations;
    await this.store.update(this.deps.admitted(slice.metadata.namespace!), slice.metadata.name!, next, { dryRun: false });
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
