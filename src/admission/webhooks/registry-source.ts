import { objectsIn, stringOf as str } from '../../api/json-read';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { GenericStore } from '../../registry/generic-store';
import { selectionPredicate } from '../../registry/predicate';
import type { AuthorizeFn } from '../policy/authorizer-library';
import type { EquivalentsOf } from './equivalents';
import type { WebhookSource } from './webhook-admission';
import { systemReadContext } from '../../registry/request-context';

/** From the watch cache where there is one (resourceVersion "0"), as kube's informers would have it. */
const CACHED = { resourceVersion: '0', match: '' } as const;

function getOrNull(store: GenericStore, namespace: string, name: string): Promise<KubeObject | null> {
  return store.find(systemReadContext(namespace), name, CACHED);
}

type Obj = Record<string, unknown>;

/** A ready address of the Endpoints carrying the Service port's name. */
function fromEndpoints(ep: KubeObject | null, portName: string): { host: string; port: number } | null {
  for (const subset of objectsIn(ep?.subsets)) {
    const epPort = objectsIn(subset.ports).find((p) => str(p.name) === portName);
    const address = objectsIn(subset.addresses)[0];
    if (epPort && address && typeof epPort.port === 'number') return { host: str(address.ip), port: epPort.port };
  }
  return null;
}

/** A ready endpoint of the Service's EndpointSlices (labelled kubernetes.io/service-name) carrying the port's name. */
function fromSlices(slices: KubeObject[], portName: string): { host: string; port: number } | null {
  for (const slice of slices) {
    const port = objectsIn(slice.ports).find((p) => str(p.name) === portName);
    const endpoint = objectsIn(slice.endpoints).find((e) => !isPlainObject(e.conditions) || (e.conditions as Obj).ready !== false);
    const address = endpoint ? (endpoint.addresses as unknown[] | undefined)?.[0] : undefined;
    if (port && typeof port.port === 'number' && typeof address === 'string') return { host: address, port: port.port };
  }
  return null;
}

/**
 * A Service's port as an endpoint address, as kube's endpoint service resolver (ResolveEndpoint)
 * finds it: the Service port, then an address of its Endpoints or EndpointSlices carrying that port's name.
 */
export async function resolveService(storeOf: StoreOf, namespace: string, name: string, port: number) {
  const svc = await getOrNull(storeOf('', 'v1', 'services'), namespace, name);
  if (!svc) throw new Error(`service "${name}" not found`);
  const svcPort = objectsIn(isPlainObject(svc.spec) ? svc.spec.ports : undefined).find((p) => p.port === port);
  if (!svcPort) throw new Error(`no service port ${port} found for service "${name}"`);
  const portName = str(svcPort.name);
  const endpoints = fromEndpoints(await getOrNull(storeOf('', 'v1', 'endpoints'), namespace, name), portName);
  if (endpoints) return endpoints;
  const slices = storeOf('discovery.k8s.io', 'v1', 'endpointslices');
  const owned = await slices.list(systemReadContext(namespace), {
    ...CACHED,
    predicate: selectionPredicate(slices.def, `kubernetes.io/service-name=${name}`, ''),
  });
  const sliced = fromSlices(owned.items, portName);
  if (sliced) return sliced;
  throw new Error(`no endpoints available for service "${name}"`);
}

type StoreOf = (group: string, version: string, resource: string) => GenericStore;

/** The webhook plugin's view of the registry. */
export function registryWebhookSource(storeOf: StoreOf, equivalents: EquivalentsOf, authorize: AuthorizeFn): WebhookSource {
  const group = 'admissionregistration.k8s.io';
  return {
    configurations: (resource) => storeOf(group, 'v1', resource).cachedObjects(),
    namespaceLabels: async (namespace) =>
      (await getOrNull(storeOf('', 'v1', 'namespaces'), '', namespace))?.metadata.labels as Record<string, string> | undefined,
    resolveService: (namespace, name, port) => resolveService(storeOf, namespace, name, port),
    equivalents,
    authorize,
  };
}
