import https from 'node:https';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { UserInfo } from '../auth/user';
import type { ApiServiceView } from '../resources/apiservices';
import { goCallError } from '../http/go-call-error';
import { HOP_BY_HOP_HEADERS } from '../http/hop-by-hop';
import { backendRequestOptions, resolveBackend, type Backend, type ResolveService } from './backend';
import type { PemPair } from '../auth/certificates';
import { upgradeOf, type UpgradeConnection } from '../http/handlers/proxy-upgrade';
import type { Duplex } from 'node:stream';

/** What the caller's credentials and identity claims were: never passed on (the identity goes in X-Remote-* instead). */
const CREDENTIAL_HEADER = /^(authorization|impersonate-.*|x-remote-.*)$/;

/** Go's http.Error: a plain-text body ending in a newline, as the aggregator's proxyError writes it. */
export function plainError(res: ServerResponse, code: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = Buffer.from(`${message}\n`);
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': body.length });
  res.end(body);
}

/** A 3xx with a Location: where an extension server would send the client, credentials and all. */
const isRedirect = (answer: IncomingMessage): boolean =>
  (answer.statusCode ?? 0) >= 300 && (answer.statusCode ?? 0) <= 399 && (answer.headers.location ?? '') !== '';

const REDIRECT_REFUSED = Buffer.from('the backend attempted to redirect this request, which is not permitted');

/**
 * UpgradeAwareHandler's RejectForwardingRedirects, on by default in the aggregator
 * (--aggregator-reject-forwarding-redirect, the fix of CVE-2022-3172): the backend's redirect
 * is replaced by a 502 without any of its headers, so no client follows it to another server.
 */
function rejectRedirect(res: ServerResponse): void {
  res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': REDIRECT_REFUSED.length });
  res.end(REDIRECT_REFUSED);
}

/**
 * transport.SetAuthProxyHeaders: the user, each group and each extra value (the key
 * percent-escaped) in the front-proxy headers the extension server trusts from the aggregator's certificate.
 */
export function identityHeaders(user: UserInfo): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'X-Remote-User': user.name };
  if (user.uid) headers['X-Remote-Uid'] = user.uid;
  if (user.groups.length > 0) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra)) {
    if (values.length > 0) headers[`X-Remote-Extra-${encodeURIComponent(key)}`] = [...values];
  }
  return headers;
}

function forwardedHeaders(req: IncomingMessage, backend: Backend, user: UserInfo): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headersDistinct)) {
    if (!value || HOP_BY_HOP_HEADERS.has(name) || CREDENTIAL_HEADER.test(name)) continue;
    headers[name] = value.length === 1 ? value[0] : value;
  }
  headers.host = `${backend.host.includes(':') ? `[${backend.host}]` : backend.host}:${backend.port}`;
  const client = req.socket.remoteAddress;
  if (client) headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${String(headers['x-forwarded-for'])}, ${client}` : client;
  return { ...headers, ...identityHeaders(user) };
}

/**
 * The aggregator's proxyHandler.ServeHTTP for a remote APIService: 503 "service unavailable" while
 * it is not Available or its Service has no endpoint; otherwise the request goes, body and all,
 * to an endpoint over TLS (caBundle or insecureSkipTLSVerify, the front-proxy client certificate),
 * with the caller's identity in X-Remote-* headers, and the answer streams back as it comes
 * (watches included). A backend that cannot be reached is a 503 with the dial error.
 */
export async function proxyToApiService(
  req: IncomingMessage,
  res: ServerResponse,
  view: ApiServiceView,
  user: UserInfo,
  target: string,
  signal: AbortSignal,
  resolve: ResolveService,
  clientCert: PemPair | null,
  log: (message: string, err?: unknown) => void,
): Promise<void> {
  if (view.available?.status !== 'True') return plainError(res, 503, 'service unavailable');
  let backend: Backend;
  try {
    backend = await resolveBackend(view, resolve, clientCert);
  } catch (err) {
    log(`error resolving ${view.service!.namespace}/${view.service!.name}: ${(err as Error).message}`);
    return plainError(res, 503, 'service unavailable');
  }
  const client = req.headers.upgrade ? upgradeOf(req) : null;
  const headers = forwardedHeaders(req, backend, user);
  if (client) Object.assign(headers, { connection: 'Upgrade', upgrade: String(req.headers.upgrade) });
  // A request without a body may be sent again, once, when a kept-alive connection turns out closed (Go's transport retries so).
  const replayable = !client && ['GET', 'HEAD', 'OPTIONS'].includes(req.method ?? 'GET') && !req.headers['content-length'] && !req.headers['transfer-encoding'];
  await new Promise<void>((done) => {
    let upstream: ClientRequest;
    const send = (retry: boolean): void => {
      upstream = https.request(backendRequestOptions(backend, req.method ?? 'GET', target, headers), (answer) => {
        if (!client && isRedirect(answer)) {
          answer.resume();
          rejectRedirect(res);
          done();
          return;
        }
        const out: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headersDistinct)) {
          if (value && !HOP_BY_HOP_HEADERS.has(name)) out[name] = value.length === 1 ? value[0] : value;
        }
        res.writeHead(answer.statusCode ?? 502, out);
        // Each chunk goes out as it arrives: a watch's events reach the client one by one.
        res.flushHeaders();
        answer.pipe(res);
        answer.on('end', done);
        answer.on('error', () => {
          res.destroy();
          done();
        });
      });
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        if (retry && upstream.reusedSocket && !res.headersSent && !signal.aborted && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) return send(false);
        plainError(res, 503, goCallError(err, backend));
        done();
      });
      // The backend switched protocols: its 101 goes to the client as it came, then bytes flow both ways until either side closes.
      if (client) upstream.on('upgrade', (answer, socket, head) => spliceUpgrade(client, answer, socket, head, done));
      if (replayable) upstream.end();
      else req.pipe(upstream);
    };
    send(replayable);
    // The client went away (or its deadline passed): the backend's request ends too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
      done();
    });
    // A long-running request ended by kapi (its watch timeout, a shutdown) ends cleanly; a deadline's 504 is the app's to write.
    signal.addEventListener('abort', () => {
      upstream.destroy();
      if (res.headersSent) res.end();
      done();
    });
  });
}

/** UpgradeAwareHandler's tunnel: the backend's 101 response written to the client's connection, then the two sockets joined. */
function spliceUpgrade(upgrade: UpgradeConnection, answer: IncomingMessage, backend: Duplex, head: Buffer, done: () => void): void {
  const client = upgrade.socket;
  let text = `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}\r\n`;
  for (let i = 0; i < answer.rawHeaders.length; i += 2) text += `${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}\r\n`;
  client.write(`${text}\r\n`);
  if (head.length > 0) client.write(head);
  // What the client sent after its request head belongs to the new protocol.
  if (upgrade.head.length > 0) backend.write(upgrade.head);
  backend.pipe(client);
  client.pipe(backend);
  const close = (): void => {
    client.destroy();
    backend.destroy();
    done();
  };
  client.on('close', close);
  backend.on('close', close);
  client.on('error', close);
  backend.on('error', close);
}
