import { badRequest } from '../api/errors';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { isProxyableIp } from '../registry/proxy/addresses';
import { proxySubresource } from '../registry/proxy/connect';
import { urlHost } from '../registry/proxy/kubelet';

/** The pod's IP: status.podIP, else the first of status.podIPs (getPodIP). */
function podIp(pod: KubeObject): string {
  const status = objectOf(pod.status);
  return stringOf(status.podIP) || stringOf(objectsIn(status.podIPs)[0]?.ip);
}

/** The first port any container declares (ResourceLocation's default). */
function firstContainerPort(pod: KubeObject): string {
  for (const c of objectsIn(objectOf(pod.spec).containers)) {
    const port = objectsIn(c.ports)[0]?.containerPort;
    if (typeof port === 'number') return String(port);
  }
  return '';
}

/**
 * pods/proxy (ProxyREST, pod ResourceLocation): `name`, `name:port` or `scheme:name:port`; the
 * request goes straight to the pod's IP (no kubelet), which must be a global unicast address, on
 * the port asked for or the first one a container declares. kube's proxy transport does not
 * verify an https pod's certificate.
 */
export const podProxy = proxySubresource('PodProxyOptions', 'pod', async (request, id) => {
  const pod = await request.parent.get(request.ctx, id.name, { resourceVersion: '', match: '', signal: request.ctx.signal });
  const port = id.port || firstContainerPort(pod);
  const ip = podIp(pod);
  if (!isProxyableIp(ip, request.services.kubelet.allowLoopback)) throw badRequest('address not allowed');
  const scheme = id.scheme || 'http';
  return {
    url: new URL(`${scheme}://${urlHost(ip, port)}`),
    tls: { rejectUnauthorized: false },
    upgradeRequired: false,
  };
});
