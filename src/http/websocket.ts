import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** RFC 6455's key suffix (x/net/websocket's websocketGUID). */
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** x/net/websocket's DefaultMaxPayloadBytes: a client frame longer than this ends the connection. */
const MAX_PAYLOAD_BYTES = 32 << 20;
const MAX_CONTROL_PAYLOAD = 125;
const CLOSE_NORMAL = 1000;
const CLOSE_PROTOCOL_ERROR = 1002;

const enum Opcode {
  Continuation = 0,
  Text = 1,
  Binary = 2,
  Close = 8,
  Ping = 9,
  Pong = 10,
}

/** wsstream.IsWebSocketRequest: `Upgrade: websocket` on a request whose Connection names upgrade. */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  const upgrade = req.headers.upgrade;
  return typeof upgrade === 'string' && upgrade.toLowerCase() === 'websocket' && /(^|,)\s*upgrade\s*(,|$)/i.test(req.headers.connection ?? '');
}

/** url.ParseRequestURI's acceptance, as checkOrigin applies it: an absolute URI or an absolute path. */
function parsesAsRequestUri(origin: string): boolean {
  if (origin.startsWith('/')) return true;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(origin)) return false;
  try {
    new URL(origin);
    return true;
  } catch {
    return false;
  }
}

/** A handshake x/net/websocket refuses: the raw answer it writes, and its status for the logs. */
export interface HandshakeRefusal {
  code: number;
  raw: string;
}

function refusal(code: number, reason: string, extra = '', body = ''): HandshakeRefusal {
  return { code, raw: `HTTP/1.1 ${code} ${reason}\r\n${extra}\r\n${body}` };
}

/**
 * The server handshake of x/net/websocket's Handler (hybiServerHandshaker.ReadHandshake, then
 * checkOrigin, then AcceptHandshake), which kube's watch uses: the 101 answer, or the refusal Go
 * writes. Browsers always send an Origin; clients without one are refused with 403 as in kube.
 */
export function webSocketHandshake(req: IncomingMessage): { accept: string } | HandshakeRefusal {
  const key = req.headers['sec-websocket-key'];
  if (!key) return refusal(400, 'Bad Request', '', 'mismatch challenge/response');
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return refusal(400, 'Bad Request', 'Sec-WebSocket-Version: 13\r\n', 'missing or bad WebSocket Version');
  const origin = version === '13' ? req.headers.origin : req.headers['sec-websocket-origin'];
  if (typeof origin !== 'string' || origin === 'null' || !parsesAsRequestUri(origin)) return refusal(403, 'Forbidden');
  const offered = (req.headers['sec-websocket-protocol'] ?? '').trim();
  const protocols = offered === '' ? [] : offered.split(',').map((p) => p.trim());
  // Go's server selects no protocol of its own: one offered is echoed, several are refused.
  if (protocols.length > 1) return refusal(400, 'Bad Request');
  const digest = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  const lines = ['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${digest}`];
  if (protocols.length === 1) lines.push(`Sec-WebSocket-Protocol: ${protocols[0]}`);
  return { accept: `${lines.join('\r\n')}\r\n\r\n` };
}

function frame(opcode: Opcode, payload: Uint8Array): Buffer {
  const length = payload.length;
  const headerLength = length <= 125 ? 2 : length < 65536 ? 4 : 10;
  const out = Buffer.allocUnsafe(headerLength + length);
  out[0] = 0x80 | opcode;
  if (length <= 125) out[1] = length;
  else if (length < 65536) {
    out[1] = 126;
    out.writeUInt16BE(length, 2);
  } else {
    out[1] = 127;
    out.writeBigUInt64BE(BigInt(length), 2);
  }
  out.set(payload, headerLength);
  return out;
}

function closeFrame(status: number): Buffer {
  const payload = Buffer.allocUnsafe(2);
  payload.writeUInt16BE(status, 0);
  return frame(Opcode.Close, payload);
}

/**
 * A server WebSocket that only sends (kube's HandleWS): each message is one frame, text or binary.
 * What the client sends is read and ignored (wsstream.IgnoreReceives): pings are answered, and a
 * close, a pong, an unmasked or oversized frame, or a broken connection end it (`closed`).
 */
export class WebSocketSender {
  private ended = false;
  private resolveClosed!: () => void;
  private readonly closedBy = new Promise<void>((resolve) => (this.resolveClosed = resolve));
  private pending = Buffer.alloc(0);
  /** Payload bytes of the current frame still to skip, and the ping being collected. */
  private skip = 0;
  private ping: { mask: Buffer; data: Buffer[]; left: number; seen: number } | null = null;

  constructor(
    private readonly socket: Duplex,
    head: Buffer,
  ) {
    const gone = (): void => this.resolveClosed();
    socket.once('close', gone);
    socket.once('end', gone);
    socket.once('error', gone);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    if (head.length > 0) this.receive(head);
  }

  /** Resolves when the client closed or broke the connection. */
  get closed(): Promise<void> {
    return this.closedBy;
  }

  /** Sends one message, waiting while the socket's buffer is full; false once the connection is gone. */
  async send(payload: Uint8Array, text: boolean, signal: AbortSignal): Promise<boolean> {
    if (this.ended || this.socket.destroyed) return false;
    if (!this.socket.write(frame(text ? Opcode.Text : Opcode.Binary, payload))) {
      await Promise.race([once(this.socket, 'drain', { signal }).catch(() => undefined), this.closedBy]);
    }
    return !this.ended && !this.socket.destroyed;
  }

  /** Conn.Close: a normal close frame, then the connection ends. */
  close(status = CLOSE_NORMAL): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.socket.destroyed) this.socket.end(closeFrame(status));
    this.resolveClosed();
  }

  private receive(chunk: Buffer): void {
    if (this.ended) return;
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (data.length > 0 && !this.ended) {
      if (this.skip > 0 || this.ping) {
        data = this.consumePayload(data);
        continue;
      }
      const header = parseHeader(data);
      if (!header) {
        this.pending = Buffer.from(data);
        return;
      }
      data = data.subarray(header.size);
      if (!header.mask) return this.close(CLOSE_PROTOCOL_ERROR);
      if (header.opcode === Opcode.Close || header.opcode === Opcode.Pong || header.length > MAX_PAYLOAD_BYTES) return this.close();
      if (header.opcode === Opcode.Ping) {
        const keep = Math.min(header.length, MAX_CONTROL_PAYLOAD);
        this.ping = { mask: header.mask, data: [], left: keep, seen: 0 };
        this.skip = header.length - keep;
        if (keep === 0) this.answerPing();
      } else {
        this.skip = header.length;
      }
    }
  }

  private consumePayload(data: Buffer): Buffer {
    if (this.ping && this.ping.left > 0) {
      const take = Math.min(this.ping.left, data.length);
      const part = Buffer.from(data.subarray(0, take));
      for (let i = 0; i < part.length; i++) part[i] ^= this.ping.mask[(this.ping.seen + i) % 4];
      this.ping.data.push(part);
      this.ping.left -= take;
      this.ping.seen += take;
      if (this.ping.left === 0) this.answerPing();
      return data.subarray(take);
    }
    const take = Math.min(this.skip, data.length);
    this.skip -= take;
    return data.subarray(take);
  }

  private answerPing(): void {
    const payload = Buffer.concat(this.ping?.data ?? []);
    this.ping = null;
    if (!this.socket.destroyed) this.socket.write(frame(Opcode.Pong, payload));
  }
}

interface FrameHeader {
  opcode: number;
  length: number;
  mask: Buffer | null;
  size: number;
}

/** A client frame's header (RFC 6455 5.2), or null while its bytes have not all arrived. */
function parseHeader(data: Buffer): FrameHeader | null {
  if (data.length < 2) return null;
  const opcode = data[0] & 0x0f;
  const masked = (data[1] & 0x80) !== 0;
  let length = data[1] & 0x7f;
  let size = 2;
  if (length === 126) {
    if (data.length < 4) return null;
    length = data.readUInt16BE(2);
    size = 4;
  } else if (length === 127) {
    if (data.length < 10) return null;
    const long = data.readBigUInt64BE(2);
    length = long > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(long);
    size = 10;
  }
  if (!masked) return { opcode, length, mask: null, size };
  if (data.length < size + 4) return null;
  return { opcode, length, mask: Buffer.from(data.subarray(size, size + 4)), size: size + 4 };
}
