import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { EndpointAddress, EndpointSubset, Endpoints, Pod, Service } from '../../generated/types/core/v1';
import { isPodReady } from '../pods/pod-conditions';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { CachedInformer } from '../runtime/informer';
import type { EventRecorder } from '../runtime/event-recorder';
import {
  familyOf,
  findPort,
  HEADLESS_LABEL,
  hasClusterIp,
  podIps,
  selectsPods,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  TRIGGER_TIME_ANNOTATION,
} from './pod-endpoints';
import { repackSubsets, truncateSubsets } from './repack-subsets';
import { ServicePodsController } from './service-pods-controller';
import { TriggerTimeTracker } from './trigger-time';

/** maxCapacity: an Endpoints object lists at most this many addresses. */
export const MAX_ENDPOINTS_ADDRESSES = 1000;
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';
/** resourcelock.LeaderElectionRecordAnnotationKey: an Endpoints lock of an old leader election, never ours to delete. */
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
/** kapi's own lease endpoint reconciler writes default/kubernetes (kubernetes-service-endpoints.ts). */
const RESERVED = 'default/kubernetes';

/** podToEndpointAddressForService: the pod's IP of the service's (first) family. */
function addressFor(service: Service, pod: Pod): EndpointAddress | null {
  const ips = podIps(pod);
  const family = service.spec?.ipFamilies?.[0] || (hasClusterIp(service) ? familyOf(service.spec!.clusterIP!) : familyOf(ips[0] ?? ''));
  const ip = ips.find((candidate) => familyOf(candidate) === family);
  if (!ip) return null;
  const address: EndpointAddress = { ip };
  if (shouldSetHostname(pod, service)) address.hostname = pod.spec!.hostname;
  if (pod.spec?.nodeName) address.nodeName = pod.spec.nodeName;
  address.targetRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
  return address;
}

/** The subsets syncService computes: one entry per pod and port, then repacked. */
export function desiredSubsets(service: Service, pods: Pod[]): EndpointSubset[] {
  const tolerateUnready = service.spec?.publishNotReadyAddresses === true;
  const subsets: EndpointSubset[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const address = addressFor(service, pod);
    if (!address) continue;
    const entry = (ports: EndpointSubset['ports']): EndpointSubset =>
      tolerateUnready || isPodReady(pod) ? { addresses: [address], ports } : { notReadyAddresses: [address], ports };
    const servicePorts = service.spec?.ports ?? [];
    if (servicePorts.length === 0) {
      if (service.spec?.clusterIP === 'None') subsets.push(entry([]));
      continue;
    }
    for (const port of servicePorts) {
      const number = findPort(pod, port);
      if (number === null) continue;
      subsets.push(entry([{ name: port.name ?? '', port: number, protocol: port.protocol, ...(port.appProtocol ? { appProtocol: port.appProtocol } : {}) }]));
    }
  }
  return repackSubsets(subsets);
}

const withoutKey = (labels: Record<string, string> | undefined, key: string): Record<string, string> => {
  const { [key]: _, ...rest } = labels ?? {};
  return rest;
};

const addressCount = (subsets: EndpointSubset[] | undefined): number =>
  (subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);

/** Subsets compared without the pods' resourceVersions (semanticIgnoreResourceVersion). */
const comparable = (subsets: EndpointSubset[] | undefined): unknown =>
  JSON.parse(JSON.stringify(subsets ?? []), (key, value: unknown) => (key === 'resourceVersion' ? undefined : value));

/**
 * kube-controller-manager's endpoints controller (pkg/controller/endpoint): each Service with a
 * selector gets the v1 Endpoints of the same name listing its pods' addresses, ready or not, per
 * port; over 1000 addresses are truncated and the object says so. Endpoints left without a
 * service are deleted. default/kubernetes is kapi's own reconciler's.
 */
export class EndpointsController extends ServicePodsController {
  readonly name = 'endpoints-controller';
  private readonly endpoints: CachedInformer;
  private readonly triggerTimes = new TriggerTimeTracker();
  private readonly recorder: EventRecorder;

  constructor(deps: ControllerDeps) {
    super(deps);
    this.recorder = deps.recorder('endpoint-controller');
    this.endpoints = deps.informers.informer(
      deps.store('', 'v1', 'endpoints'), // onEndpointsDelete: a service's Endpoints deleted by someone else are made again.
      { deleted: (ep) => this.queue.add(`${ep.metadata.namespace}/${ep.metadata.name}`) },
      { name: 'endpoints' },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.services, this.pods, this.endpoints];
  }

  /** checkLeftoverEndpoints: Endpoints whose service went while the controller was away. */
  protected override synced(): void {
    for (const ep of this.endpoints.list()) {
      if (ep.metadata.annotations?.[LEADER_ANNOTATION] === undefined) this.queue.add(`${ep.metadata.namespace}/${ep.metadata.name}`);
    }
  }

  protected async sync(key: string): Promise<boolean> {
    if (key === RESERVED) return true;
    const [namespace, name] = key.split('/');
    const service = this.services.get(key) as Service | undefined;
    const store = this.deps.store('', 'v1', 'endpoints');
    if (!service) {
      this.triggerTimes.forget(namespace, name);
      try {
        await store.delete(this.deps.admitted(namespace), name, { dryRun: false });
      } catch (err) {
        if (!isStatusError(err) || err.code !== 404) throw err;
      }
      return true;
    }
    if (!selectsPods(service)) return true;
    const pods = this.podsSelectedBy(service);
    const triggerTime = this.triggerTimes.compute(service, pods);
    const subsets = desiredSubsets(service, pods);
    const current = this.endpoints.get(key) as Endpoints | undefined;
    const serviceLabels = service.metadata.labels ?? {};
    if (
      current &&
      jsonEqual(comparable(current.subsets), comparable(subsets)) &&
      jsonEqual(withoutKey(current.metadata.labels, HEADLESS_LABEL), serviceLabels) &&
      addressCount(current.subsets) <= MAX_ENDPOINTS_ADDRESSES &&
      current.metadata.annotations?.[OVER_CAPACITY_ANNOTATION] === undefined
    )
      return true;
    const next = this.desired(service, current, subsets, triggerTime);
    const ctx = this.deps.admitted(namespace);
    try {
      if (current) await store.update(ctx, name, next, { dryRun: false });
      else await store.create(ctx, next, { dryRun: false });
    } catch (err) {
      // A terminating namespace refuses new objects, and will not stop refusing.
      if (!current && isStatusError(err) && err.code === 403 && err.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return true;
      const message = err instanceof Error ? err.message : String(err);
      if (current) this.recorder.event(next, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${namespace}/${name}: ${message}`);
      else this.recorder.event(next, 'Warning', 'FailedToCreateEndpoint', `Failed to create endpoint for service ${namespace}/${name}: ${message}`);
      throw err;
    }
    return true;
  }

  private desired(service: Service, current: Endpoints | undefined, subsets: EndpointSubset[], triggerTime: string | null): Endpoints {
    const annotations = { ...(current?.metadata.annotations ?? {}) };
    if (triggerTime) annotations[TRIGGER_TIME_ANNOTATION] = triggerTime;
    else delete annotations[TRIGGER_TIME_ANNOTATION];
    if (truncateSubsets(subsets, MAX_ENDPOINTS_ADDRESSES)) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
    else delete annotations[OVER_CAPACITY_ANNOTATION];
    const labels = hasClusterIp(service) ? withoutKey(service.metadata.labels, HEADLESS_LABEL) : { ...service.metadata.labels, [HEADLESS_LABEL]: '' };
    const metadata = current
      ? { ...current.metadata, labels, annotations }
      : { name: service.metadata.name, namespace: service.metadata.namespace, labels, annotations };
    if (Object.keys(metadata.annotations).length === 0) delete (metadata as { annotations?: unknown }).annotations;
    if (Object.keys(metadata.labels).length === 0) delete (metadata as { labels?: unknown }).labels;
    const endpoints: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata };
    if (subsets.length) endpoints.subsets = subsets;
    return endpoints;
  }
}
