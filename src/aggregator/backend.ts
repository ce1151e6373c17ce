import https from 'node:https';
import { goCallError } from '../http/go-call-error';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import type { PemPair } from '../auth/certificates';
import type { ApiServiceView } from '../resources/apiservices';

/** Where and how the aggregator reaches an APIService's server: an endpoint address, the name and CA its certificate is checked with, the client certificate it presents. */
export interface Backend {
  host: string;
  port: number;
  /** `<service>.<namespace>.svc`, as the aggregator's TLS config names it. */
  serverName: string;
  /** PEM from caBundle; absent: the system's roots. */
  ca?: string;
  insecure: boolean;
  clientCert: PemPair | null;
}

/** Finds an address of a Service's port (kube's endpoint service resolver); throws with why not. */
export type ResolveService = (namespace: string, name: string, port: number) => Promise<{ host: string; port: number }>;

export async function resolveBackend(view: ApiServiceView, resolve: ResolveService, clientCert: PemPair | null): Promise<Backend> {
  const service = view.service!;
  const address = await resolve(service.namespace, service.name, service.port);
  return {
    ...address,
    serverName: `${service.name}.${service.namespace}.svc`,
    ca: view.caBundle ? Buffer.from(view.caBundle, 'base64').toString('utf8') : undefined,
    insecure: view.insecureSkipTLSVerify,
    clientCert,
  };
}

/** Connections kept for the next request, pooled by address and TLS options, as Go's transport keeps them. */
export const BACKEND_AGENT = new https.Agent({ keepAlive: true });

/** https.request options reaching a backend at `path`. */
export function backendRequestOptions(backend: Backend, method: string, path: string, headers: Record<string, string | string[]>): https.RequestOptions {
  return {
    host: backend.host,
    port: backend.port,
    method,
    path,
    headers,
    servername: isIP(backend.serverName) ? undefined : backend.serverName,
    ca: backend.ca,
    rejectUnauthorized: !backend.insecure,
    checkServerIdentity: (_host, cert) => (backend.insecure ? undefined : checkServerIdentity(backend.serverName, cert)),
    cert: backend.clientCert?.cert,
    key: backend.clientCert?.key,
    agent: BACKEND_AGENT,
  };
}

/** Who the aggregator's own calls (discovery, availability checks) act as: system:masters, so they are always allowed (available_controller.go). */
const AGGREGATOR_IDENTITY = { 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters' };

/**
 * A GET of a backend's path, as the aggregator itself unless `identity` (front-proxy headers) says
 * whom for: the status and body. A kept-alive connection found closed is replaced once.
 */
export function backendGet(
  backend: Backend,
  path: string,
  accept: string,
  timeoutMs: number,
  identity: Record<string, string | string[]> = AGGREGATOR_IDENTITY,
  retry = true,
): Promise<{ status: number; body: Buffer; contentType: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { ...backendRequestOptions(backend, 'GET', path, { Accept: accept, ...identity }), signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new Error(goCallError(err, backend))));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), contentType: String(res.headers['content-type'] ?? '') }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (retry && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE'))
        resolve(backendGet(backend, path, accept, timeoutMs, identity, false));
      else reject(new Error(goCallError(err, backend)));
    });
    req.end();
  });
}
