import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { badRequest } from '../../api/errors';
import { isProxyableIp } from './addresses';
import { proxySubresource } from './connect';
import { nodeConnection, urlHost } from './kubelet';

/**
 * The node strategy's isProxyableHostname: every address the node's host resolves to must be
 * proxyable. A name is resolved as the dial will resolve it, so neither a DNS name of a loopback
 * or link-local address nor a legacy IPv4 form (`127.1`, `2130706433`, which the resolver reads
 * as 127.0.0.1) reaches what a literal address may not. A failed lookup is a 400 too.
 */
async function assertProxyableHost(host: string, allowLoopback: boolean): Promise<void> {
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw badRequest(`lookup ${host}: ${code === 'ENOTFOUND' || code === 'ENODATA' ? 'no such host' : (err as Error).message}`);
    }
  }
  if (addresses.length === 0) throw badRequest('no addresses for hostname');
  if (addresses.some((a) => !isProxyableIp(a, allowLoopback))) throw badRequest('address not allowed');
}

/**
 * nodes/proxy (node ResourceLocation): `name`, `name:port` or `scheme:name:port`. Without a port,
 * or with the kubelet's, the kubelet over HTTPS with the kubelet client's TLS; another port of the
 * node with the scheme asked for (http by default), unverified as kube's proxy transport.
 */
export const nodeProxy = proxySubresource('NodeProxyOptions', 'node', async (request, id) => {
  const config = request.services.kubelet;
  const kubelet = await nodeConnection(request.parent, id.name, config);
  await assertProxyableHost(kubelet.host, config.allowLoopback);
  if (id.port === '' || id.port === String(kubelet.port)) {
    return { url: new URL(`https://${urlHost(kubelet.host, kubelet.port)}`), tls: kubelet.tls, upgradeRequired: false };
  }
  return { url: new URL(`${id.scheme || 'http'}://${urlHost(kubelet.host, id.port)}`), tls: { rejectUnauthorized: false }, upgradeRequired: false };
});
