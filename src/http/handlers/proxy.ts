import { abortSignalOf } from '../../api/request-abort';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import { badRequest, methodNotAllowed, StatusError } from '../../api/errors';
import type { GroupResource, StatusReason } from '../../api/types';
import type { ConnectSubresource, ProxyTarget } from '../../registry/proxy/connect';
import type { GenericStore } from '../../registry/generic-store';
import type { RequestContext } from '../../registry/request-context';
import type { ServerServices } from '../../registry/types';
import type { ResourceRequestInfo } from '../request-info';
import { HOP_BY_HOP_HEADERS } from '../hop-by-hop';
import { upgradeOf, type UpgradeConnection } from './proxy-upgrade';
import { authorizeCreateToo } from '../../auth/create-on-update-authorization';

export interface ConnectCall {
  req: IncomingMessage;
  res: ServerResponse;
  info: ResourceRequestInfo;
  ctx: RequestContext;
  store: GenericStore;
  sub: ConnectSubresource;
  query: URLSearchParams;
  services: ServerServices;
}

/** Besides the hop-by-hop headers: the host, and the caller's credentials. */
const DROPPED_HEADERS = new Set([...HOP_BY_HOP_HEADERS, 'host', 'authorization']);

/**
 * The request's headers for the backend: hop-by-hop ones dropped, the client's address appended to
 * X-Forwarded-For (httputil.ReverseProxy, AppendForwardedForHeader). Authorization and
 * Impersonate-* go no further, as kube's authentication and impersonation filters delete them.
 */
function forwardedHeaders(req: IncomingMessage, upgrade: boolean): Record<string, string | string[]> {
  const { headers } = req;
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name) || name.startsWith('impersonate-')) continue;
    out[name] = value;
  }
  const client = req.socket.remoteAddress;
  if (client) out['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${client}` : client;
  if (upgrade) {
    out.connection = 'Upgrade';
    out.upgrade = headers.upgrade ?? '';
  }
  return out;
}

/** The path after `<name>/<subresource>` in the raw request path (still escaped), '' when there is none. */
export function pathAfterSubresource(rawUrl: string, info: ResourceRequestInfo): string {
  const rawPath = rawUrl.split('?')[0];
  // Segments up to and including the subresource: api[s], (group), version, (namespaces, ns), resource, name, subresource.
  const skip = (info.apiPrefix === 'apis' ? 3 : 2) + (info.namespace ? 2 : 0) + 3;
  let at = 0;
  let seen = 0;
  while (seen < skip && at < rawPath.length) {
    while (rawPath[at] === '/') at++;
    const next = rawPath.indexOf('/', at);
    at = next === -1 ? rawPath.length : next;
    seen++;
  }
  return rawPath.slice(at);
}

/** net.JoinPreservingTrailingSlash of a location path and the proxied path. */
function joinPath(base: string, rest: string): string {
  const joined = `${base}/${rest}`.replace(/\/+/g, '/');
  const trimmed = joined.length > 1 ? joined.replace(/\/$/, '') : joined;
  return rest.endsWith('/') && !trimmed.endsWith('/') ? `${trimmed}/` : trimmed;
}

/** errors.NewGenericServerResponse's reason and message for a backend's answer (pods/log's response checker). */
function backendStatus(code: number, body: string, gr: GroupResource, name: string): StatusError {
  const known: Record<number, [StatusReason, string]> = {
    400: ['BadRequest', 'the server rejected our request for an unknown reason'],
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', body],
    404: ['NotFound', 'the server could not find the requested resource'],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    409: ['Conflict', 'the server reported a conflict'],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
  };
  const [reason, message] =
    known[code] ??
    (code >= 500
      ? (['InternalError', `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`] as [StatusReason, string])
      : (['', `the server responded with the status code ${code} but did not return more information`] as [StatusReason, string]));
  return new StatusError(code, reason, `${message} ( ${gr.resource} ${name})`, { name, group: gr.group, kind: gr.resource });
}

function dialError(err: Error): StatusError {
  return new StatusError(500, 'InternalError', `error dialing backend: ${err.message}`);
}

function isUpgradeRequest(req: IncomingMessage): boolean {
  return typeof req.headers.upgrade === 'string' && /(^|,)\s*upgrade\s*(,|$)/i.test(req.headers.connection ?? '');
}

/**
 * A connect subresource (pods/log, exec, attach, portforward, proxy; nodes/proxy; services/proxy),
 * as kube's UpgradeAwareHandler: upgrade requests are tunnelled byte for byte to the backend (kapi
 * does not speak the stream protocols), other requests are proxied with their answers streamed,
 * and pods/log's answer is checked and streamed as text.
 */
export async function handleConnect(call: ConnectCall): Promise<void> {
  const { req, res, info, sub } = call;
  if (!sub.methods.includes(req.method ?? 'GET')) {
    throw methodNotAllowed();
  }
  if (sub.createsSession && info.verb !== 'create') authorizeCreateToo(call.ctx, info);
  const upgrade = upgradeOf(req);
  const path = sub.takesPath ? pathAfterSubresource(req.url ?? '', info) : '';
  const target = await sub.target({
    ctx: call.ctx,
    parent: call.store,
    namespace: info.namespace,
    name: info.name,
    query: call.query,
    services: call.services,
  });
  if (!target) {
    res.writeHead(204);
    res.end();
    return;
  }
  if (sub.takesPath) {
    target.url.pathname = joinPath(target.url.pathname === '/' ? '' : target.url.pathname, path) || '/';
    target.url.search = new URL(req.url ?? '/', 'http://x').search;
  }
  if (upgrade && isUpgradeRequest(req)) return tunnel(call, target, upgrade);
  if (target.upgradeRequired) throw badRequest('Upgrade request required');
  // proxyRedirectsforRootPath: the root of a proxied server is asked for with its trailing slash.
  if (sub.takesPath && target.url.pathname === '/' && !path.endsWith('/') && (req.method === 'GET' || req.method === 'HEAD')) {
    const raw = req.url ?? '';
    const at = raw.indexOf('?');
    res.writeHead(301, { Location: at === -1 ? `${raw}/` : `${raw.slice(0, at)}/${raw.slice(at)}` });
    res.end();
    return;
  }
  return forward(call, target);
}

function requestOptions(target: ProxyTarget) {
  const { hostname } = target.url;
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return {
    host,
    port: Number(target.url.port) || (target.url.protocol === 'https:' ? 443 : 80),
    ...(target.url.protocol === 'https:' ? { ...target.tls, ...(isIP(host) ? {} : { servername: host }) } : {}),
  };
}

/** An ordinary request: sent to the backend, its answer streamed back as it comes (follow logs end when the client goes). */
function forward(call: ConnectCall, target: ProxyTarget): Promise<void> {
  const { req, res, sub, ctx } = call;
  return new Promise<void>((resolve, reject) => {
    const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send({
      ...requestOptions(target),
      method: sub.stream ? 'GET' : req.method,
      path: `${target.url.pathname}${target.url.search}`,
      headers: sub.stream ? {} : forwardedHeaders(req, false),
      agent: false,
    });
    // The client went away, or a shutdown ends the stream: the backend request goes too, and a
    // stream already under way ends cleanly (as a watch does).
    const stop = (): void => {
      upstream.destroy();
      if (res.headersSent) res.end();
      else res.destroy();
      resolve();
    };
    abortSignalOf(ctx.signal).addEventListener('abort', stop, { once: true });
    upstream.on('error', (err) => {
      abortSignalOf(ctx.signal).removeEventListener('abort', stop);
      if (res.headersSent) {
        res.destroy();
        resolve();
      } else reject(dialError(err));
    });
    upstream.on('response', (answer) => {
      const code = answer.statusCode ?? 502;
      if (sub.stream && (code < 200 || code > 299)) {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          abortSignalOf(ctx.signal).removeEventListener('abort', stop);
          const body = Buffer.concat(chunks).subarray(0, 50_000).toString('utf8');
          reject(backendStatus(code, body, { group: '', resource: `${call.info.resource}/${call.info.subresource}` }, call.info.name));
        });
        return;
      }
      if (sub.stream) res.writeHead(200, { 'Content-Type': 'text/plain' });
      else {
        const headers = { ...answer.headers };
        for (const h of HOP_BY_HOP_HEADERS) delete headers[h];
        res.writeHead(code, headers);
      }
      res.flushHeaders();
      answer.pipe(res);
      answer.on('end', () => {
        abortSignalOf(ctx.signal).removeEventListener('abort', stop);
        resolve();
      });
      answer.on('error', () => stop());
    });
    if (sub.stream || req.method === 'GET' || req.method === 'HEAD') upstream.end();
    else req.pipe(upstream);
  });
}

/**
 * An upgrade request: the request head goes to the backend as it came (its path and query the
 * target's), then bytes flow both ways until either side closes. The backend's own answer (101,
 * or a refusal) reaches the client unchanged.
 */
function tunnel(call: ConnectCall, target: ProxyTarget, client: UpgradeConnection): Promise<void> {
  const { req, res } = call;
  return new Promise<void>((resolve, reject) => {
    const options = requestOptions(target);
    const backend: Duplex = target.url.protocol === 'https:' ? tlsConnect(options) : netConnect({ host: options.host, port: options.port });
    let connected = false;
    backend.once(target.url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      connected = true;
      const headers = forwardedHeaders(req, true);
      const lines = [`${req.method} ${target.url.pathname}${target.url.search} HTTP/1.1`, `Host: ${target.url.host}`];
      for (const [name, value] of Object.entries(headers)) for (const v of [value].flat()) lines.push(`${name}: ${v}`);
      backend.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (client.head.length > 0) backend.write(client.head);
      backend.once('data', (first: Buffer) => {
        const code = /^HTTP\/1\.[01] (\d{3})/.exec(first.subarray(0, 16).toString('latin1'));
        if (code) res.statusCode = Number(code[1]);
      });
      backend.pipe(client.socket);
      client.socket.pipe(backend);
      backend.on('close', () => client.socket.destroy());
      client.socket.on('close', () => backend.destroy());
      resolve();
    });
    // Before the connection is made a failure is answered as a Status; after, it ends the tunnel.
    backend.on('error', (err) => {
      if (connected) client.socket.destroy();
      else reject(dialError(err));
    });
    // A shutdown ends the tunnel (node's server would otherwise wait for it forever).
    abortSignalOf(call.ctx.signal).addEventListener(
      'abort',
      () => {
        backend.destroy();
        client.socket.destroy();
      },
      { once: true },
    );
  });
}
