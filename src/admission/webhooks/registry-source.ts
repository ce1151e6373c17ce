import { isStatusError } from '../../api/errors';
import { objectsIn, stringOf as str } from '../../api/json-read';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { GenericStore } from '../../registry/generic-store';
import { selectionPredicate } from '../../registry/predicate';
import type { WebhookSource } from './webhook-admission';

/** From the watch cache where there is one (resourceVersion "0"), as kube's informers would have it. */
const CACHED = { resourceVersion: '0', match: '' } as const;

async function getOrNull(store: GenericStore, namespace: string, name: string): Promise<KubeObject | null> {
  try {
    return await store.get(namespace, name, CACHED);
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return null;
    throw err;
  }
}

/**
 * A Service's port as an endpoint address, as kube's endpoint service resolver (ResolveEndpoint)
 * finds it: the Service port, then a ready address of the Endpoints subset carrying that port's name.
 */
async function resolveService(services: GenericStore, endpoints: GenericStore, namespace: string, name: string, port: number) {
  const svc = await getOrNull(services, namespace, name);
  if (!svc) throw new Error(`service "${name}" not found`);
  const svcPort = objectsIn(isPlainObject(svc.spec) ? svc.spec.ports : undefined).find((p) => p.port === port);
  if (!svcPort) throw new Error(`no service port ${port} found for service "${name}"`);
  const ep = await getOrNull(endpoints, namespace, name);
  for (const subset of objectsIn(ep?.subsets)) {
    const epPort = objectsIn(subset.ports).find((p) => str(p.name) === str(svcPort.name));
    const address = objectsIn(subset.addresses)[0];
    if (epPort && address && typeof epPort.port === 'number') return { host: str(address.ip), port: epPort.port };
  }
  throw new Error(`no endpoints available for service "${name}"`);
}

/** The webhook plugin's view of the registry. */
export function registryWebhookSource(storeOf: (group: string, version: string, resource: string) => GenericStore): WebhookSource {
  const group = 'admissionregistration.k8s.io';
  return {
    configurations: async (resource) => {
      const store = storeOf(group, 'v1', resource);
      return (await store.list('', { ...CACHED, predicate: selectionPredicate(store.def, '', '') })).items;
    },
    namespaceLabels: async (namespace) => (await getOrNull(storeOf('', 'v1', 'namespaces'), '', namespace))?.metadata.labels as Record<string, string> | undefined,
    resolveService: (namespace, name, port) => resolveService(storeOf('', 'v1', 'services'), storeOf('', 'v1', 'endpoints'), namespace, name, port),
  };
}
