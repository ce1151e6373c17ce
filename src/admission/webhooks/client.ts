import https from 'node:https';
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
