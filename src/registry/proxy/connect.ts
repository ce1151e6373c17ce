import { badRequest } from '../../api/errors';
import type { Verb } from '../resource-definition';
import type { ProxyTarget, ConnectRequest, ConnectSubresource } from '../types';

export type { ProxyTarget, BackendTls, ConnectRequest, ConnectSubresource } from '../types';

/** kube's proxyMethods: what the proxy subresources accept. */
export const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
/** Discovery's verbs for them. */
export const PROXY_VERBS: Verb[] = ['create', 'delete', 'get', 'patch', 'update'];

export type SchemeNamePort = { scheme: string; name: string; port: string };

/**
 * A proxy subresource (pods/proxy, services/proxy, nodes/proxy): kube's proxy methods and verbs,
 * the rest of the path for the backend, the object named `[scheme:]name[:port]` (a 400 otherwise,
 * as kube's ResourceLocation functions answer).
 */
export function proxySubresource(
  kind: string,
  what: string,
  target: (request: ConnectRequest, id: SchemeNamePort) => Promise<ProxyTarget | null>,
): ConnectSubresource {
  return {
    name: 'proxy',
    kind: { group: '', version: 'v1', kind },
    verbs: PROXY_VERBS,
    methods: PROXY_METHODS,
    takesPath: true,
    stream: false,
    target: (request) => {
      const id = splitSchemeNamePort(request.name);
      if (!id) throw badRequest(`invalid ${what} request ${JSON.stringify(request.name)}`);
      return target(request, id);
    },
  };
}

/** utilnet.SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port` (scheme http or https); null when invalid. */
export function splitSchemeNamePort(id: string): SchemeNamePort | null {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return null;
  if (name === '' || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return null;
  return { scheme, name, port };
}
