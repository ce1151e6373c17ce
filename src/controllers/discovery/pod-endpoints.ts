import { isIP } from 'node:net';
import type { Pod, Service, ServicePort } from '../../generated/types/core/v1';
import { isPodTerminal } from '../pods/pod-conditions';

export type IpFamily = 'IPv4' | 'IPv6';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** helper.IsServiceIPSet: a cluster IP that is neither None nor empty. */
export const hasClusterIp = (service: Service): boolean => !!service.spec?.clusterIP && service.spec.clusterIP !== 'None';

/**
 * The services kube's endpoint controllers fill from pods: with a selector, and not ExternalName.
 * An empty selector is none, as it is once stored in kube (protobuf keeps no empty map).
 */
export const selectsPods = (service: Service): boolean => Object.keys(service.spec?.selector ?? {}).length > 0 && service.spec?.type !== 'ExternalName';

/** labels.Set(selector).AsSelectorPreValidated: every pair present (an empty selector matches every pod). */
export function serviceSelects(service: Service, pod: Pod): boolean {
  if (pod.metadata.namespace !== service.metadata.namespace) return false;
  const labels = pod.metadata.labels ?? {};
  return Object.entries(service.spec?.selector ?? {}).every(([k, v]) => labels[k] === v);
}

/** endpointsliceutil.ShouldPodBeInEndpoints: running or pending with an IP; terminating ones only when asked for. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (!pod.status?.podIP && !(pod.status?.podIPs ?? []).length) return false;
  return includeTerminating || !pod.metadata.deletionTimestamp;
}

/** The pod's IPs, podIPs first (podIP alone on a pod that lists none). */
export function podIps(pod: Pod): string[] {
  const listed = (pod.status?.podIPs ?? []).map((p) => p.ip ?? '').filter((ip) => ip);
  return listed.length ? listed : pod.status?.podIP ? [pod.status.podIP] : [];
}

export const familyOf = (ip: string): IpFamily | null => (isIP(ip) === 4 ? 'IPv4' : isIP(ip) === 6 ? 'IPv6' : null);

/** podutil.FindPort: a numeric target port as is; a named one from the containers' ports of the same protocol. */
export function findPort(pod: Pod, port: ServicePort): number | null {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  const protocol = port.protocol ?? 'TCP';
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
  for (const container of containers) {
    for (const p of container.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === protocol && p.containerPort) return p.containerPort;
  }
  return null;
}

/** endpointsliceutil.ShouldSetHostname: the pod names this service as its subdomain. */
export const shouldSetHostname = (pod: Pod, service: Service): boolean =>
  !!pod.spec?.hostname && pod.spec.subdomain === service.metadata.name && pod.metadata.namespace === service.metadata.namespace;
