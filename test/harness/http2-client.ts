import { connect, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import type { TlsOptions } from './tls';

export interface Http2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

/** An HTTP/2 session to a kapi secure URL (ALPN h2 only), with the client certificate of `tls` if it has one. */
export function http2Session(url: string, tls: TlsOptions): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connect(url, { ...tls, ALPNProtocols: ['h2'] });
    session.once('connect', () => {
      session.off('error', reject);
      session.on('error', () => undefined);
      resolve(session);
    });
    session.once('error', reject);
  });
}

/** One request on a stream of `session`; a JSON body (when given) is sent as such. */
export function http2Request(
  session: ClientHttp2Session,
  path: string,
  init: { method?: string; body?: unknown; headers?: OutgoingHttpHeaders } = {},
): Promise<Http2Answer> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const stream = session.request({
      ':method': init.method ?? 'GET',
      ':path': path,
      accept: 'application/json',
      ...(payload ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    });
    let headers: IncomingHttpHeaders = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => (headers = h));
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      resolve({ status: Number(headers[':status']), headers, text, body });
    });
    stream.on('error', reject);
    stream.end(payload);
  });
}
