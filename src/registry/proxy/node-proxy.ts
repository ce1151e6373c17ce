import { isIP } from 'node:net';
import { badRequest } from '../../api/errors';
import { isProxyableIp } from './addresses';
import { proxySubresource } from './connect';
import { nodeConnection, urlHost } from './kubelet';

/**
 * nodes/proxy (node ResourceLocation): `name`, `name:port` or `scheme:name:port`. Without a port,
 * or with the kubelet's, the kubelet over HTTPS with the kubelet client's TLS; another port of the
 * node with the scheme asked for (http by default), unverified as kube's proxy transport.
 * A literal address must be proxyable (isProxyableHostname); names are not resolved here.
 */
export const nodeProxy = proxySubresource('NodeProxyOptions', 'node', async (request, id) => {
  const config = request.services.kubelet;
  const kubelet = await nodeConnection(request.parent, id.name, config);
  if ((isIP(kubelet.host) && !isProxyableIp(kubelet.host, config.allowLoopback)) || (kubelet.host === 'localhost' && !config.allowLoopback)) {
    throw badRequest('address not allowed');
  }
  if (id.port === '' || id.port === String(kubelet.port)) {
    return { url: new URL(`https://${urlHost(kubelet.host, kubelet.port)}`), tls: kubelet.tls, upgradeRequired: false };
  }
  return { url: new URL(`${id.scheme || 'http'}://${urlHost(kubelet.host, id.port)}`), tls: { rejectUnauthorized: false }, upgradeRequired: false };
});
