import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { objectOf, objectsIn, stringOf } from '../../api/json-read';
import { StatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { BackendTls } from './connect';
import type { KubeletClientConfig } from '../types';
import type { ObjectStore } from '../types';
import { SYSTEM_READ_ALL } from '../request-context';

export type { KubeletClientConfig } from '../types';

/** kube-apiserver's default --kubelet-preferred-address-types. */
export const DEFAULT_KUBELET_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];

/** ports.KubeletPort: used when a node reports no kubelet endpoint. */
const DEFAULT_KUBELET_PORT = 10250;

export interface NodeConnection {
  host: string;
  port: number;
  tls: BackendTls;
}

/** The TLS a kubelet is dialled with; insecureSkipVerify (pods/log's insecureSkipTLSVerifyBackend) drops the verification. */
export function kubeletTls(config: KubeletClientConfig, insecureSkipVerify = false): BackendTls {
  return {
    ...(config.cert && config.key ? { cert: config.cert, key: config.key } : {}),
    ...(config.ca && !insecureSkipVerify ? { ca: config.ca } : {}),
    rejectUnauthorized: Boolean(config.ca) && !insecureSkipVerify,
  };
}

/** Go's %v of a []NodeAddress: `[{InternalIP 10.0.0.1} {Hostname n1}]`. */
function formatAddresses(addresses: Record<string, unknown>[]): string {
  return `[${addresses.map((a) => `{${stringOf(a.type)} ${stringOf(a.address)}}`).join(' ')}]`;
}

/** nodeutil.GetPreferredNodeAddress: the first address of the first preferred type the node has. */
export function preferredNodeAddress(node: KubeObject, preferredTypes: string[]): string {
  const addresses = objectsIn(objectOf(node.status).addresses);
  for (const type of preferredTypes) {
    const found = addresses.find((a) => a.type === type && stringOf(a.address) !== '');
    if (found) return stringOf(found.address);
  }
  // A plain error in kube (NoMatchError), which its handlers answer as a 500 with the error's text.
  throw new StatusError(500, 'InternalError', `no preferred addresses found; known addresses: ${formatAddresses(addresses)}`);
}

/**
 * NodeConnectionInfoGetter.GetConnectionInfo: the node's preferred address and its kubelet port
 * (status.daemonEndpoints.kubeletEndpoint.Port, 10250 when unset), dialled over HTTPS.
 */
export async function nodeConnection(nodes: ObjectStore, nodeName: string, config: KubeletClientConfig): Promise<NodeConnection> {
  const node = await nodes.get(SYSTEM_READ_ALL, nodeName, { resourceVersion: '', match: '' });
  const host = preferredNodeAddress(node, config.preferredAddressTypes);
  const port = objectOf(objectOf(objectOf(node.status).daemonEndpoints).kubeletEndpoint).Port;
  return { host, port: typeof port === 'number' && port > 0 ? port : DEFAULT_KUBELET_PORT, tls: kubeletTls(config) };
}

/** The host part of a URL: IPv6 addresses in brackets, the port when there is one. */
export function urlHost(host: string, port: number | string = ''): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}${port === '' ? '' : `:${port}`}`;
}

/** The kubelet client from its flags' files (--kubelet-client-certificate, --kubelet-client-key, --kubelet-certificate-authority). */
export function loadKubeletClient(
  files: { cert: string; key: string; ca: string },
  preferredAddressTypes: string[],
  allowLoopback: boolean,
): KubeletClientConfig {
  const read = (file: string): string | undefined => (file ? readFileSync(file, 'utf8') : undefined);
  return { cert: read(files.cert), key: read(files.key), ca: read(files.ca), preferredAddressTypes, allowLoopback };
}
