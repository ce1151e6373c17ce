import { badRequest } from '../../api/errors';
import type { GroupVersionKind } from '../../api/types';
import type { GenericStore } from '../generic-store';
import type { RequestContext } from '../request-context';
import type { Verb } from '../resource-definition';
import type { ServerServices } from '../server-services';

/** Where a connect subresource's request goes, and how the connection is made. */
export interface ProxyTarget {
  /** Scheme, host, path and query of the backend request. */
  url: URL;
  /** TLS of an https backend: client certificate, trusted CAs, whether the certificate is verified. */
  tls: BackendTls;
  /** exec, attach and portforward serve only upgrade requests (kube's UpgradeRequired). */
  upgradeRequired: boolean;
}

export interface BackendTls {
  cert?: string;
  key?: string;
  ca?: string;
  rejectUnauthorized: boolean;
}

/** What a connect subresource is asked: the parent's store, the name segment and the query. */
export interface ConnectRequest {
  ctx: RequestContext;
  parent: GenericStore;
  namespace: string;
  /** The name segment of the path: `name`, or for proxy `name:port` / `scheme:name:port`. */
  name: string;
  query: URLSearchParams;
  services: ServerServices;
}

/**
 * A subresource served by connecting to a backend, as kube's rest.Connecter (exec, attach,
 * portforward, proxy) and pods/log's streaming getter: the request is proxied, upgrades included.
 */
export interface ConnectSubresource {
  name: string;
  /** The options kind discovery names (PodExecOptions, ...; pods/log: Pod). */
  kind: GroupVersionKind;
  /** Discovery's verbs, from the HTTP methods kube registers. */
  verbs: Verb[];
  /** The HTTP methods served; others are 405. */
  methods: string[];
  /** The path after the subresource belongs to the backend (proxy). */
  takesPath: boolean;
  /** The backend's answer is a log stream: a non-2xx answer becomes a Status (kube's LocationStreamer and its response checker). */
  stream: boolean;
  /** null: nothing to connect to, answered 204 No Content (pods/log of a pod not on a node, as kube's LocationStreamer without a location). */
  target(request: ConnectRequest): Promise<ProxyTarget | null>;
}

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
