import { X509Certificate } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';

/**
 * A small extension API server, as sample-apiserver would be: HTTPS with a CA of its own (its
 * certificate names `<service>.<namespace>.svc` and 127.0.0.1), trusting only front-proxy client
 * certificates signed by the requestheader CA with an allowed name, and taking the caller from
 * the X-Remote-* headers. It serves wardle.example.com/v1alpha1 `flunders` (namespaced: list,
 * get, create, watch) and records every request it gets.
 */

export const WARDLE_GROUP = 'wardle.example.com';
export const WARDLE_VERSION = 'v1alpha1';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The common name of the client certificate, '' without one. */
  clientCn: string;
}

export interface ExtensionServer {
  port: number;
  /** base64 of the serving CA, for an APIService's caBundle. */
  caBundle: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export interface ExtensionOptions {
  /** The requestheader CA (PEM) and the names allowed, from kube-system/extension-apiserver-authentication. */
  requestHeaderCa: string;
  allowedNames: string[];
  serviceName: string;
  namespace: string;
  /** The group served (wardle.example.com unless given), at v1alpha1. */
  group?: string;
  /** A hostile server's redirect: a request for the flunder `moved` is answered 302 to this Location. */
  redirectTo?: string;
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res
    .writeHead(code, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
}

const resourceList = (GV: string) => ({
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: GV,
  resources: [
    { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['create', 'get', 'list', 'watch'], shortNames: ['fl'] },
    { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get'] },
  ],
});

export async function startExtensionServer(opts: ExtensionOptions): Promise<ExtensionServer> {
  const group = opts.group ?? WARDLE_GROUP;
  const GV = `${group}/${WARDLE_VERSION}`;
  const ca = createCertificateAuthority('wardle-ca');
  const serving = createLeafCertificate(ca, {
    commonName: 'wardle',
    usage: 'server',
    hosts: ['127.0.0.1', `${opts.serviceName}.${opts.namespace}.svc`],
    validDays: 1,
  });
  const trusted = new X509Certificate(opts.requestHeaderCa);
  const seen: SeenRequest[] = [];
  const flunders = new Map<string, Record<string, unknown>>();
  const server: Server = createServer(
    { cert: serving.cert, key: serving.key, ca: opts.requestHeaderCa, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const clientCn = peer?.raw ? (new X509Certificate(peer.raw).subject.match(/CN=([^\n]+)/)?.[1] ?? '') : '';
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCn });
      // requestheader authentication as an extension server does it: only a verified, allowed front proxy may name the user.
      const verified = peer?.raw ? new X509Certificate(peer.raw).checkIssued(trusted) && new X509Certificate(peer.raw).verify(trusted.publicKey) : false;
      if (!verified || !opts.allowedNames.includes(clientCn) || !req.headers['x-remote-user']) return status(res, 401, 'Unauthorized', 'Unauthorized');
      const url = new URL(req.url ?? '/', 'https://wardle');
      const parts = url.pathname.split('/').filter(Boolean);
      if (url.pathname === `/apis/${GV}`) return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(resourceList(GV)));
      if (url.pathname === '/apis') {
        const version = { groupVersion: GV, version: WARDLE_VERSION };
        return void res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: group, versions: [version], preferredVersion: version }] }));
      }
      // /apis/<group>/<version>/namespaces/<ns>/flunders[/<name>]
      if (parts.length < 6 || parts[3] !== 'namespaces' || parts[5] !== 'flunders')
        return status(res, 404, 'NotFound', 'the server could not find the requested resource');
      const namespace = parts[4];
      const name = parts[6];
      if (name === 'moved' && opts.redirectTo)
        return void res.writeHead(302, { Location: opts.redirectTo, 'Set-Cookie': 'stolen=1', 'Content-Type': 'text/plain' }).end('moved');
      const inNamespace = () => [...flunders.values()].filter((f) => (f.metadata as { namespace: string }).namespace === namespace);
      if (req.method === 'POST') {
        let text = '';
        req.on('data', (c) => (text += c));
        req.on('end', () => {
          const obj = JSON.parse(text) as Record<string, any>;
          obj.metadata = {
            ...obj.metadata,
            namespace,
            resourceVersion: String(flunders.size + 1),
            creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          };
          flunders.set(`${namespace}/${obj.metadata.name}`, obj);
          res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify(obj));
        });
        return;
      }
      if (name) {
        const found = flunders.get(`${namespace}/${name}`);
        if (!found) return status(res, 404, 'NotFound', `flunders.${group} "${name}" not found`);
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(found));
      }
      if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
        // One ADDED event per flunder, then the stream stays open until the client goes.
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        for (const f of inNamespace()) res.write(`${JSON.stringify({ type: 'ADDED', object: f })}\n`);
        return;
      }
      if ((req.headers.accept ?? '').includes('as=Table')) {
        // What kube's aggregator forwards unchanged: the Table is the extension server's to make.
        const table = {
          kind: 'Table',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { resourceVersion: String(flunders.size) },
          columnDefinitions: [
            { name: 'Name', type: 'string', format: 'name', description: 'the name', priority: 0 },
            { name: 'Color', type: 'string', format: '', description: 'wardle colour', priority: 0 },
          ],
          rows: inNamespace().map((f) => ({
            cells: [(f.metadata as { name: string }).name, (f.spec as { color?: string } | undefined)?.color ?? ''],
            object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: f.metadata },
          })),
        };
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(table));
      }
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ kind: 'FlunderList', apiVersion: GV, metadata: { resourceVersion: String(flunders.size) }, items: inNamespace() }));
    },
  );
  // An `attach`-like stream: a verified front proxy's upgrade to `kapi-echo` is answered 101, then every byte comes back.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const peer = (socket as TLSSocket).getPeerCertificate();
    const clientCn = peer?.raw ? (new X509Certificate(peer.raw).subject.match(/CN=([^\n]+)/)?.[1] ?? '') : '';
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCn });
    if (!opts.allowedNames.includes(clientCn) || req.headers.upgrade !== 'kapi-echo' || !req.headers['x-remote-user']) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: kapi-echo\r\nConnection: Upgrade\r\n\r\n');
    socket.pipe(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(ca.cert).toString('base64'),
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The Service and Endpoints that make `port` on 127.0.0.1 the Service's port 443 (kapi with --allow-loopback-endpoints). */
export function serviceFor(name: string, namespace: string, port: number): { service: Record<string, unknown>; endpoints: Record<string, unknown> } {
  return {
    service: { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'https', port: 443, targetPort: port }] } },
    endpoints: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name, namespace },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port }] }],
    },
  };
}

/** The APIService of wardle.example.com/v1alpha1 (or another group's v1alpha1) through `service` in `namespace`. */
export function wardleApiService(caBundle: string, service: string, namespace: string, group = WARDLE_GROUP): Record<string, unknown> {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${WARDLE_VERSION}.${group}` },
    spec: { group, version: WARDLE_VERSION, service: { namespace, name: service }, caBundle, groupPriorityMinimum: 1000, versionPriority: 15 },
  };
}
