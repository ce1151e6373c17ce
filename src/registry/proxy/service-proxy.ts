import { serviceUnavailable } from '../../api/errors';
import { objectOf, objectsIn, stringOf, stringsIn } from '../../api/json-read';
import type { KubeObject } from '../../api/types';
import { selectionPredicate } from '../predicate';
import { proxySubresource, type ConnectRequest } from './connect';
import { urlHost } from './kubelet';

interface Backend {
  ip: string;
  port: number;
}

const pick = <T>(items: T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

/** A random ready address of a subset that carries the port name (the Endpoints search of ResourceLocation). */
function fromEndpoints(endpoints: KubeObject | null, portName: string): Backend | null {
  const candidates: Backend[] = [];
  for (const subset of objectsIn(endpoints?.subsets)) {
    const port = objectsIn(subset.ports).find((p) => stringOf(p.name) === portName);
    if (!port || typeof port.port !== 'number') continue;
    for (const address of objectsIn(subset.addresses)) if (stringOf(address.ip)) candidates.push({ ip: stringOf(address.ip), port: port.port });
  }
  return pick(candidates) ?? null;
}

/** The same search over the Service's EndpointSlices (labelled kubernetes.io/service-name): ready endpoints only. */
function fromSlices(slices: KubeObject[], portName: string): Backend | null {
  const candidates: Backend[] = [];
  for (const slice of slices) {
    const port = objectsIn(slice.ports).find((p) => stringOf(p.name) === portName);
    if (!port || typeof port.port !== 'number') continue;
    for (const endpoint of objectsIn(slice.endpoints)) {
      if (objectOf(endpoint.conditions).ready === false) continue;
      const ip = stringsIn(endpoint.addresses)[0];
      if (ip) candidates.push({ ip, port: port.port });
    }
  }
  return pick(candidates) ?? null;
}

async function findBackend(request: ConnectRequest, service: string, portName: string): Promise<Backend | null> {
  const { ctx } = request;
  const read = { resourceVersion: '', match: '' as const, signal: ctx.signal };
  const endpoints = await request.services.store('', 'endpoints').find(ctx, service, read);
  const listed = fromEndpoints(endpoints, portName);
  if (listed) return listed;
  const slices = request.services.store('discovery.k8s.io', 'endpointslices');
  const owned = await slices.list(ctx, { ...read, predicate: selectionPredicate(slices.def, `kubernetes.io/service-name=${service}`, '') });
  return fromSlices(owned.items, portName);
}

/**
 * services/proxy (the service REST's ResourceLocation): `name`, `name:port` or `scheme:name:port`.
 * A port number is the Service port's, which names the endpoint port to look for; the request
 * goes to a random ready address of the Service's Endpoints, or else of its EndpointSlices, over
 * http or (asked for) https, unverified as kube's proxy transport.
 */
export const serviceProxy = proxySubresource('ServiceProxyOptions', 'service', async (request, id) => {
  let portName = id.port;
  if (/^[+-]?\d+$/.test(id.port)) {
    const svc = await request.parent.get(request.ctx, id.name, { resourceVersion: '', match: '', signal: request.ctx.signal });
    const declared = objectsIn(objectOf(svc.spec).ports).find((p) => p.port === Number(id.port));
    if (!declared) throw serviceUnavailable(`no service port ${Number(id.port)} found for service ${JSON.stringify(id.name)}`);
    portName = stringOf(declared.name);
  }
  const backend = await findBackend(request, id.name, portName);
  if (!backend) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(request.name)}`);
  return { url: new URL(`${id.scheme || 'http'}://${urlHost(backend.ip, backend.port)}`), tls: { rejectUnauthorized: false }, upgradeRequired: false };
});
