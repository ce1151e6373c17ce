import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';

/**
 * A kubelet's streaming endpoints on 127.0.0.1 over HTTPS with a certificate of its own CA:
 * /containerLogs (follow included), /exec and /attach over WebSocket (the v5.channel.k8s.io and
 * v4.channel.k8s.io protocols kubectl 1.32 offers first), /portForward over WebSocket
 * (portforward.k8s.io), and any other path answered with a JSON echo of the request (what
 * nodes/proxy reaches).
 */

export interface FakeKubeletOptions {
  /** The log lines of a container, by `namespace/pod/container`; others are a 404. */
  logs?: Record<string, string[]>;
  /** Clients must present a certificate of this CA (as a kubelet with --client-ca-file). */
  clientCa?: string;
}

export interface SeenRequest {
  method: string;
  url: string;
  /** The common name of the client certificate, '' without one. */
  clientName: string;
  upgrade: string;
}

export interface FakeKubelet {
  port: number;
  /** The CA of its serving certificate. */
  ca: string;
  requests: SeenRequest[];
  /** Follow streams (logs with follow=true) still open. */
  openFollows(): number;
  /** Upgraded connections (exec, attach) still open. */
  openStreams(): number;
  close(): Promise<void>;
}

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const STREAM_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
const PROCESS_START_MS = 100;
/** The kubelet's WebSocket port forwarding protocol: per port a data and an error channel, each opened with the port (uint16, little endian). */
const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
/** The v4/v5 channels: stdout 1, the error stream (a Status) 3. */
const STDOUT = 1;
const ERROR = 3;
const FOLLOW_LINES_AT_MOST = 600;

/** One unmasked server frame (RFC 6455 §5.2): FIN set, the given opcode. */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, length]) : Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff]);
  return Buffer.concat([head, payload]);
}

const channelFrame = (channel: number, data: string): Buffer => frame(0x2, Buffer.concat([Buffer.from([channel]), Buffer.from(data)]));

function clientName(req: IncomingMessage): string {
  const cert = (req.socket as TLSSocket).getPeerCertificate?.();
  return cert && cert.subject ? String(cert.subject.CN ?? '') : '';
}

/** A WebSocket handshake in the first protocol of ours the client offers, then what a container would send. */
function serveStream(req: IncomingMessage, socket: Duplex, url: URL): void {
  const offered = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim());
  const [, kind] = url.pathname.split('/');
  const protocol = offered.find((p) => (kind === 'portForward' ? p === PORT_FORWARD_PROTOCOL : STREAM_PROTOCOLS.includes(p)));
  const key = req.headers['sec-websocket-key'];
  if (req.headers.upgrade?.toLowerCase() !== 'websocket' || !protocol || typeof key !== 'string') {
    socket.end('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 30\r\nConnection: close\r\n\r\nwebsocket v4/v5 stream needed\n');
    return;
  }
  // What the client sends (stdin, resize, close signals) is read and dropped, so that its end is seen.
  socket.resume();
  const accept = createHash('sha1')
    .update(key + WEBSOCKET_GUID)
    .digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
  );
  if (kind === 'portForward') {
    // Each port's channels are announced, then its data channel answers as a server behind it would.
    url.searchParams.getAll('port').forEach((port, i) => {
      const number = Buffer.alloc(2);
      number.writeUInt16LE(Number(port));
      socket.write(frame(0x2, Buffer.concat([Buffer.from([2 * i]), number])));
      socket.write(frame(0x2, Buffer.concat([Buffer.from([2 * i + 1]), number])));
      socket.write(channelFrame(2 * i, `pong ${port}\n`));
    });
    socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
    setTimeout(() => socket.end(), 50);
    return;
  }
  // exec runs `echo <args>` as a shell would; attach says it is attached. Output comes a moment
  // after the upgrade, as from a process that starts: client-go's WebSocket executor reads frames
  // before it has registered its streams and drops what arrives in between ("Unknown stream id").
  const command = url.searchParams.getAll('command');
  const stdout = kind === 'exec' ? (command[0] === 'echo' ? `${command.slice(1).join(' ')}\n` : `ran ${command.join(' ')}\n`) : 'attached\n';
  setTimeout(() => {
    if (url.searchParams.get('output') === '1') socket.write(channelFrame(STDOUT, stdout));
    // An attached stdin keeps the stream open until the client closes it.
    if (kind === 'attach' && url.searchParams.get('input') === '1') return;
    socket.write(channelFrame(ERROR, JSON.stringify({ metadata: {}, status: 'Success' })));
    socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
    setTimeout(() => socket.end(), 50);
  }, PROCESS_START_MS);
}

export async function startFakeKubelet(options: FakeKubeletOptions = {}): Promise<FakeKubelet> {
  const ca = createCertificateAuthority('fake-kubelet-ca');
  const serving = createLeafCertificate(ca, { commonName: 'fake-kubelet', usage: 'server', hosts: ['127.0.0.1', 'localhost'], validDays: 1 });
  const requests: SeenRequest[] = [];
  let follows = 0;
  const record = (req: IncomingMessage): URL => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', clientName: clientName(req), upgrade: String(req.headers.upgrade ?? '') });
    return new URL(req.url ?? '/', 'https://127.0.0.1');
  };
  const server: Server = createServer(
    {
      cert: serving.cert,
      key: serving.key,
      ...(options.clientCa ? { ca: options.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
    },
    (req, res) => {
      const url = record(req);
      const [, kind, namespace, pod, container] = url.pathname.split('/');
      if (kind !== 'containerLogs') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, path: url.pathname, query: url.search }));
        return;
      }
      const lines = options.logs?.[`${namespace}/${pod}/${container}`];
      if (!lines) {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end(`container ${container} of ${namespace}/${pod} not found`);
        return;
      }
      const tail = url.searchParams.get('tailLines');
      const shown = tail === null ? lines : lines.slice(Math.max(0, lines.length - Number(tail)));
      const stamp = url.searchParams.get('timestamps') === 'true' ? '2026-01-01T00:00:00.000000000Z ' : '';
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      for (const line of shown) res.write(`${stamp}${line}\n`);
      if (url.searchParams.get('follow') !== 'true') {
        res.end();
        return;
      }
      // Following: a line every 100 ms until the client goes (bounded).
      follows++;
      let n = 0;
      const timer = setInterval(() => {
        res.write(`${stamp}follow ${++n}\n`);
        if (n >= FOLLOW_LINES_AT_MOST) res.end();
      }, 100);
      res.on('close', () => {
        clearInterval(timer);
        follows--;
      });
    },
  );
  let streams = 0;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    streams++;
    socket.on('close', () => streams--);
    socket.on('error', () => socket.destroy());
    serveStream(req, socket, record(req));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    ca: ca.cert,
    requests,
    openFollows: () => follows,
    openStreams: () => streams,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
