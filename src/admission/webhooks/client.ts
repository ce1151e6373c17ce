import https from 'node:https';
import { stringOf as str } from '../../api/json-read';
import { isPlainObject } from '../../api/types';
import { GO_DEADLINE, goCallError } from '../../http/go-call-error';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';

/** Where and how to reach one webhook: an address, the name its certificate must carry, and the CA to trust. */
export interface WebhookTarget {
  /** The URL called; its path and query are the request target. */
  url: URL;
  /** The address connected to (a Service's endpoint, or the URL's host). */
  host: string;
  port: number;
  /** TLS server name: the URL's host, or `<service>.<namespace>.svc`. */
  serverName: string;
  /** PEM; absent: the system's roots. */
  caBundle?: string;
}

/** Why a call failed, in the words Go's client would use (after `failed to call webhook: Post "<url>": `). */
export class WebhookCallError extends Error {}

/**
 * Connections are kept for the next call, as Go's transport keeps them; the agent pools them by
 * address and TLS options (CA, server name), so a connection is reused only for the same trust.
 */
const AGENT = new https.Agent({ keepAlive: true });

/** POSTs `body` as JSON and answers with the parsed JSON response; any failure is a WebhookCallError. */
export function postJson(target: WebhookTarget, body: unknown, timeoutMs: number, signal: AbortSignal): Promise<{ status: number; body: unknown }> {
  const payload = Buffer.from(JSON.stringify(body));
  const local = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: target.host,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        method: 'POST',
        servername: isIP(target.serverName) ? undefined : target.serverName,
        ca: target.caBundle,
        checkServerIdentity: (_host, cert) => checkServerIdentity(target.serverName, cert),
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': payload.length },
        signal: local,
        agent: AGENT,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new WebhookCallError(goCallError(err, target))));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch {
            reject(new WebhookCallError(`an error on the server ("${text.slice(0, 200)}") has prevented the request from succeeding`));
          }
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => reject(new WebhookCallError(local.aborted ? GO_DEADLINE : goCallError(err, target))));
    req.end(payload);
  });
}

/** A Service's port as an address kapi can connect to (kube's ServiceResolver). */
export type ResolveService = (namespace: string, name: string, port: number) => Promise<{ host: string; port: number }>;

/**
 * The URL a webhook's clientConfig names: `url`, or `https://<service>.<namespace>.svc:<port><path>`,
 * with the `timeout` query Go's rest client adds; `text` keeps a default :443 that URL drops and
 * Go's error messages show.
 */
export function webhookUrl(clientConfig: unknown, timeoutSeconds: number): { text: string; url: URL } {
  const cc = isPlainObject(clientConfig) ? clientConfig : {};
  const svc = isPlainObject(cc.service) ? cc.service : null;
  const base = svc ? `https://${str(svc.name)}.${str(svc.namespace)}.svc:${typeof svc.port === 'number' ? svc.port : 443}${str(svc.path)}` : str(cc.url);
  const url = new URL(base);
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  return { text: `${base}${url.search}`, url };
}

/**
 * Where to connect: the URL's host, or a Service's endpoint with `<service>.<namespace>.svc` as
 * the TLS name. A Service that cannot be reached is a failed call, as the dial of kube's proxy
 * transport fails ("no endpoints available for service").
 */
export async function webhookTarget(clientConfig: unknown, url: URL, resolve: ResolveService): Promise<WebhookTarget> {
  const cc = isPlainObject(clientConfig) ? clientConfig : {};
  const caBundle = typeof cc.caBundle === 'string' && cc.caBundle.trim() ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : 443;
  if (!isPlainObject(cc.service)) return { url, host, port, serverName: host, caBundle };
  try {
    const address = await resolve(str(cc.service.namespace), str(cc.service.name), port);
    return { url, host: address.host, port: address.port, serverName: host, caBundle };
  } catch (err) {
    throw new WebhookCallError(err instanceof Error ? err.message : String(err));
  }
}
