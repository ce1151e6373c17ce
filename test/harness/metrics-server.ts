import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';

/**
 * A stand-in for metrics-server: metrics.k8s.io/v1beta1 over HTTPS with a CA of its own, trusting
 * only the aggregator's front-proxy certificate (requestheader CA and allowed names) and taking the
 * caller from X-Remote-User, as metrics-server does. Each pods list is answered from `usage`, which
 * the test sets: the PodMetrics of the pods a namespace and label selector pick.
 */

export const METRICS_GROUP_VERSION = 'metrics.k8s.io/v1beta1';

export interface PodUsage {
  name: string;
  containers: { name: string; usage: Record<string, string> }[];
}

export interface MetricsServer {
  port: number;
  caBundle: string;
  /** Who each pods list was for (X-Remote-User), in order. */
  callers: string[];
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  requestHeaderCa: string;
  allowedNames: string[];
  serviceName: string;
  namespace: string;
  usage(namespace: string, labelSelector: string): Promise<PodUsage[]>;
}

const json = (body: unknown) => JSON.stringify(body);

export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  const ca = createCertificateAuthority('metrics-ca');
  const serving = createLeafCertificate(ca, {
    commonName: 'metrics-server',
    usage: 'server',
    hosts: ['127.0.0.1', `${opts.serviceName}.${opts.namespace}.svc`],
    validDays: 1,
  });
  const trusted = new X509Certificate(opts.requestHeaderCa);
  const callers: string[] = [];
  const server: Server = createServer(
    { cert: serving.cert, key: serving.key, ca: opts.requestHeaderCa, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const reply = (code: number, body: unknown) => res.writeHead(code, { 'Content-Type': 'application/json' }).end(json(body));
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const cert = peer?.raw ? new X509Certificate(peer.raw) : null;
      const clientCn = cert?.subject.match(/CN=([^\n]+)/)?.[1] ?? '';
      if (!cert || !cert.checkIssued(trusted) || !cert.verify(trusted.publicKey) || !opts.allowedNames.includes(clientCn) || !req.headers['x-remote-user']) {
        return reply(401, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      }
      const url = new URL(req.url ?? '/', 'https://metrics');
      if (url.pathname === `/apis/${METRICS_GROUP_VERSION}`) {
        return reply(200, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: METRICS_GROUP_VERSION,
          resources: [
            { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
            { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
          ],
        });
      }
      const match = new RegExp(`^/apis/${METRICS_GROUP_VERSION}/namespaces/([^/]+)/pods$`).exec(url.pathname);
      if (!match)
        return reply(404, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'the server could not find the requested resource',
          reason: 'NotFound',
          code: 404,
        });
      callers.push(String(req.headers['x-remote-user']));
      const namespace = decodeURIComponent(match[1]);
      opts
        .usage(namespace, url.searchParams.get('labelSelector') ?? '')
        .then((pods) => {
          const timestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
          reply(200, {
            kind: 'PodMetricsList',
            apiVersion: METRICS_GROUP_VERSION,
            metadata: {},
            items: pods.map((p) => ({ metadata: { name: p.name, namespace }, timestamp, window: '1s', containers: p.containers })),
          });
        })
        .catch((err: unknown) =>
          reply(500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: String(err), reason: 'InternalError', code: 500 }),
        );
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(ca.cert).toString('base64'),
    callers,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
