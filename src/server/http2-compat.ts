import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Http2ServerRequest, Http2ServerResponse, type Http2SecureServer, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { ReadableOptions } from 'node:stream';

/**
 * node's HTTP/2 compatibility objects, made to show a request to the handlers as Go's HTTP/2
 * server shows it to kube's (x/net/http2's serverConn.newWriterAndRequest): no pseudo-headers
 * among the headers, Host from `:authority`, and `headersDistinct` as an HTTP/1.1 request has it.
 * Every other member the handlers use (method, url, body stream, socket address, complete) is
 * node's own; `socket` is node's proxy of the connection's TLS socket.
 */
export class Http2Request extends Http2ServerRequest {
  #distinct: Record<string, string[]> | undefined;

  constructor(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, options: ReadableOptions, rawHeaders: string[]) {
    super(stream, headers, options, rawHeaders);
    const plain: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) if (!name.startsWith(':')) plain[name] = value;
    const authority = headers[':authority'];
    if (plain.host === undefined && typeof authority === 'string') plain.host = authority;
    const raw: string[] = [];
    for (let i = 0; i < rawHeaders.length; i += 2) if (!rawHeaders[i].startsWith(':')) raw.push(rawHeaders[i], rawHeaders[i + 1]);
    // Own properties over node's accessors (which read the pseudo-headers, and still serve method and url).
    Object.defineProperties(this, { headers: { value: plain, enumerable: true }, rawHeaders: { value: raw, enumerable: true } });
  }

  /** As IncomingMessage.headersDistinct: every value of each header, under its lower-case name. */
  get headersDistinct(): Record<string, string[]> {
    if (this.#distinct) return this.#distinct;
    const out: Record<string, string[]> = {};
    for (let i = 0; i < this.rawHeaders.length; i += 2) (out[this.rawHeaders[i].toLowerCase()] ??= []).push(this.rawHeaders[i + 1]);
    return (this.#distinct = out);
  }
}

/** Header fields HTTP/2 forbids (RFC 9113 8.2.2); Go's HTTP/2 server drops them from what a handler sets. */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/**
 * The response side of Go's HTTP/2 server: connection-specific fields a handler sets are dropped
 * (kube's watch sets Transfer-Encoding, its filters Connection), and `Connection: close` sends a
 * GOAWAY, so the connection ends once its streams have (x/net/http2's writeChunk and
 * startGracefulShutdown; kube's --goaway-chance and shutdown filters rely on it).
 */
export class Http2Response extends Http2ServerResponse<Http2Request> {
  override setHeader(name: string, value: number | string | readonly string[]): void {
    if (!this.connectionSpecific(name, value)) super.setHeader(name, value);
  }

  override appendHeader(name: string, value: string | string[]): void {
    if (!this.connectionSpecific(name, value)) super.appendHeader(name, value);
  }

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const headers = rest.find((arg): arg is OutgoingHttpHeaders => typeof arg === 'object' && arg !== null);
    const kept: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined && !this.connectionSpecific(name, value)) kept[name] = value;
    const message = rest.find((arg): arg is string => typeof arg === 'string');
    return message === undefined ? super.writeHead(statusCode, kept) : super.writeHead(statusCode, message, kept);
  }

  private connectionSpecific(name: string, value: number | string | readonly string[]): boolean {
    const lower = name.toLowerCase();
    if (!CONNECTION_SPECIFIC.has(lower)) return false;
    if (lower === 'connection' && [value].flat().some((v) => String(v).toLowerCase() === 'close')) this.stream.session?.close();
    return true;
  }
}

/** The secure port's server: HTTP/1.1 through node's objects, HTTP/2 through the two above. */
export type SecurePortServer = Http2SecureServer<typeof IncomingMessage, typeof ServerResponse, typeof Http2Request, typeof Http2Response>;
