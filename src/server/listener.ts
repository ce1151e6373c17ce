import { STATUS_CODES, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { badRequest } from '../api/errors';
import type { Status, StatusReason } from '../api/types';
import type { SecurePortServer } from './http2-compat';
import type { Logger } from './logger';

export interface ListenerLimits {
  /** Open client connections at most (--max-connections); 0 for no limit. */
  maxConnections: number;
}

/** kube-apiserver's http.Server: MaxHeaderBytes 1 << 20, so request targets up to 1 MiB. */
const MAX_HEADER_BYTES = 1 << 20;
/** kube-apiserver's ReadHeaderTimeout ("just shy of requestTimeoutUpperBound"). */
const HEADER_TIMEOUT_MS = 32_000;
/** kube-apiserver's IdleTimeout, the keep-alive timeout of Go's default transport. */
const IDLE_TIMEOUT_MS = 90_000;
/** A request's body must have arrived by then; the request deadline usually answers long before. */
const REQUEST_TIMEOUT_MS = 300_000;
/** How often node checks the two timeouts above; its default (30 s) would double the header timeout. */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** What the limits know of one client connection, kept on its socket (an HTTP/2 request's socket is node's proxy of it, which reads it). */
interface Connection {
  /** Its HTTP/2 session; null for HTTP/1.1. */
  session: ServerHttp2Session | null;
  /** HTTP/2 streams open on it. */
  streams: number;
  idleTimer: NodeJS.Timeout | undefined;
}
const CONNECTION = Symbol('kapi.connection');
type TrackedSocket = Socket & { [CONNECTION]?: Connection };

/** The connections of a listener, for a graceful shutdown. */
export interface ListenerConnections {
  /** As Go's Server.Shutdown: idle HTTP/1.1 connections close; every HTTP/2 connection is sent a GOAWAY, and closes once its streams end. */
  drain(): void;
  /** Closes every connection now. */
  closeAll(): void;
}

function statusBody(code: number, message: string, reason?: StatusReason): string {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason ? { reason } : {}), code };
  return JSON.stringify(status);
}

/** net/http's chunked reader's words for a body it cannot read (kube's handler answers with them). */
function malformedBodyMessage(err: NodeJS.ErrnoException): string {
  return err.code === 'HPE_INVALID_CHUNK_SIZE' ? 'invalid byte in chunk length' : `malformed chunked encoding (${err.code ?? err.message})`;
}

/** Answers before any handler, as Go's server does, with its code (and a Status body). */
function answerEarly(res: ServerResponse, code: number, message: string, reason?: StatusReason): void {
  const body = statusBody(code, message, reason);
  res.shouldKeepAlive = false;
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/**
 * What node's parser refused, as the answer a Go server would give (with a Status body); null
 * for a connection that is only closed: one that broke, or whose TLS handshake failed or timed
 * out (https.Server reports those as client errors too, before there is any HTTP to answer in).
 */
function clientErrorAnswer(err: NodeJS.ErrnoException): { code: number; body: string } | null {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { code: 431, body: statusBody(431, `request header fields too large: the request line and headers may take up to ${MAX_HEADER_BYTES} bytes`) };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { code: 408, body: statusBody(408, 'the request was not received in time', 'Timeout') };
  if (err.code?.startsWith('HPE_')) return { code: 400, body: statusBody(400, `malformed HTTP request: ${err.code}`, 'BadRequest') };
  return null;
}

/**
 * Every limit of a client-facing listener, plain or TLS (HTTP/1.1, and HTTP/2 by ALPN); call it before `listen`.
 * - Request line and headers up to 1 MiB, read within 32 s; an over-long one gets 431.
 * - Idle keep-alive connections close after 90 s; an HTTP/2 connection with no stream open for
 *   90 s is sent a GOAWAY (Go's IdleTimeout, which its HTTP/2 server applies so).
 * - Parser errors and timeouts are answered with a Status and the connection is closed.
 * - At most `maxConnections` connections: at the cap, the oldest connection with no request being
 *   served (idle, or still sending its headers; an HTTP/2 one with no stream open) is closed for
 *   the newcomer (an upgraded one, a live exec or port-forward session, is always busy); when every
 *   one is busy the newcomer is refused. A flood of idle or slow connections therefore never locks
 *   out a client.
 */
export function applyListenerLimits(server: Server | SecurePortServer, limits: ListenerLimits, log: Logger): ListenerConnections {
  Object.assign(server, {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: HEADER_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: IDLE_TIMEOUT_MS,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    // node would answer a missing Host with an empty 400; answerGoChecks answers it with a Status
    requireHostHeader: false,
  });
  answerGoChecks(server);

  const open = new Set<TrackedSocket>();
  /** Connections serving an HTTP/1.1 request, with its response. */
  const busy = new Map<Socket, ServerResponse>();
  /** Connections an upgrade request took over (exec, attach, port-forward, proxied WebSockets): busy until they close. */
  const upgraded = new Set<Socket>();
  let refused = 0;
  const isTls = 'addContext' in server;
  // Before the HTTP layers take the connection, so that its HTTP/2 session finds the record.
  server.prependListener(isTls ? 'secureConnection' : 'connection', (socket: TrackedSocket) => {
    socket[CONNECTION] = { session: null, streams: 0, idleTimer: undefined };
  });
  const idle = (s: TrackedSocket): boolean => !busy.has(s) && !upgraded.has(s) && !s[CONNECTION]?.streams;
  // A TLS listener counts its connections once the handshake is done (its handshakeTimeout bounds that).
  server.on(isTls ? 'secureConnection' : 'connection', (socket: TrackedSocket) => {
    if (limits.maxConnections > 0 && open.size >= limits.maxConnections) {
      let oldest: TrackedSocket | undefined;
      for (const s of open) {
        if (!idle(s)) continue;
        oldest = s;
        break;
      }
      if (!oldest) {
        if (refused++ % 1000 === 0) log(`connection refused: all ${limits.maxConnections} connections are serving requests (--max-connections)`);
        socket.destroy();
        return;
      }
      oldest.destroy();
      open.delete(oldest);
    }
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      busy.delete(socket);
      upgraded.delete(socket);
      clearTimeout(socket[CONNECTION]?.idleTimer);
    });
  });
  server.on('session', (session: ServerHttp2Session) => {
    const connection = (session.socket as TrackedSocket)[CONNECTION];
    if (!connection) return;
    connection.session = session;
    const armIdleTimer = (): void => {
      connection.idleTimer = setTimeout(() => session.close(), IDLE_TIMEOUT_MS).unref();
    };
    armIdleTimer();
    session.on('stream', (stream) => {
      connection.streams++;
      clearTimeout(connection.idleTimer);
      stream.once('close', () => {
        if (--connection.streams === 0 && !session.closed) armIdleTimer();
      });
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.httpVersionMajor === 2) return;
    const socket = req.socket;
    busy.set(socket, res);
    res.once('close', () => busy.delete(socket));
  });
  // A refused upgrade ends its connection's writable side, after which it is as idle as any other.
  server.on('upgrade', (req: IncomingMessage) => {
    upgraded.add(req.socket);
    req.socket.once('finish', () => upgraded.delete(req.socket));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const answer = clientErrorAnswer(err);
    const reply = (): void => {
      if (!answer || !socket.writable) {
        socket.destroy();
        return;
      }
      const head = `HTTP/1.1 ${answer.code} ${STATUS_CODES[answer.code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(answer.body)}\r\nConnection: close\r\n\r\n`;
      socket.end(head + answer.body);
    };
    // Bytes after a request that are not a request (a body sent without its length) are answered
    // once that request's answer is out, as a Go server reads the next request only then.
    // Only a request received whole may finish first; an error within the one being served
    // (its body cut short, or too slow) ends the connection, and with it that request.
    const serving = busy.get(socket);
    if (!serving) reply();
    else if (serving.req.complete && err.code !== 'ERR_HTTP_REQUEST_TIMEOUT') serving.once('close', reply);
    else if (err.code?.startsWith('HPE_') && !serving.req.complete) {
      // A body node cannot parse (a malformed chunk size): the handler reading it answers 400, as
      // kube's handler answers the reader's error, and the connection ends after that answer.
      serving.shouldKeepAlive = false;
      serving.once('close', () => socket.destroy());
      if (serving.req.listenerCount('error') > 0) serving.req.emit('error', badRequest(malformedBodyMessage(err)));
    } else socket.destroy();
  });
  return {
    drain: () => {
      // node's HTTP/2 server has it too, for its HTTP/1.1 connections (its types leave it out).
      (server as Server).closeIdleConnections();
      for (const socket of open) socket[CONNECTION]?.session?.close();
    },
    closeAll: () => {
      for (const socket of open) socket.destroy();
    },
  };
}

/**
 * The checks Go's server makes before a handler sees a request, answered with Go's codes and a
 * Status body: an HTTP/1.1 request without Host (400), an Expect other than 100-continue (417).
 * CONNECT, which node hands over as a tunnel, is served as any other method (Go does so).
 */
function answerGoChecks(server: Server | SecurePortServer): void {
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  const missingHost = (req: IncomingMessage): boolean => req.httpVersion === '1.1' && !req.rawHeaders.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'host');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (missingHost(req)) answerEarly(res, 400, 'missing required Host header', 'BadRequest');
    else for (const handler of handlers) handler.call(server, req, res);
  });
  // Go reads the Host header before it looks at Expect; its HTTP/2 server leaves Expect alone.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    if (req.httpVersionMajor === 2) server.emit('request', req, res);
    else if (missingHost(req)) answerEarly(res, 400, 'missing required Host header', 'BadRequest');
    else answerEarly(res, 417, 'Expectation Failed');
  });
  server.on('connect', (req: IncomingMessage, socketOrResponse: Socket | ServerResponse) => {
    // node hands an HTTP/2 CONNECT over with its response, an HTTP/1.1 one with its socket.
    if (req.httpVersionMajor === 2) {
      server.emit('request', req, socketOrResponse);
      return;
    }
    const socket = socketOrResponse as Socket;
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => socket.end());
    req.push(null);
    server.emit('request', req, res);
  });
}
