import { connect, type Socket } from 'node:net';

/** What came back on a raw connection: the status line's code, headers, body, and whether the server closed. */
export interface RawReply {
  /** The body is whole: a chunked one ended with its last chunk (a clean end of stream). */
  complete: boolean;
  code: number;
  headers: Record<string, string>;
  body: string;
  /** The server ended the connection after its answer. */
  closed: boolean;
}

function parse(data: Buffer, closed: boolean): RawReply | null {
  const text = data.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [status, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  let body = data.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  let complete = true;
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    let rest = body;
    let terminated = false;
    for (;;) {
      const nl = rest.indexOf('\r\n');
      if (nl < 0) break;
      const size = Number.parseInt(rest.subarray(0, nl).toString(), 16);
      if (size === 0) terminated = true;
      if (!size) break;
      parts.push(rest.subarray(nl + 2, nl + 2 + size));
      rest = rest.subarray(nl + 2 + size + 2);
    }
    // A chunked answer is complete at its last (empty) chunk; a cut one only when the connection ends.
    if (!terminated && !closed) return null;
    complete = terminated;
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (body.length < length && !closed) return null;
    complete = body.length >= length;
    body = body.subarray(0, length);
  } else if (!closed) {
    return null;
  }
  return { code: Number(status.split(' ')[1]), headers, body: body.toString('utf8'), closed, complete };
}

/**
 * Sends bytes as they are (no client-side checks, so any request line or header goes) and reads
 * one answer; resolves once the answer is complete and the server closed or kept the connection
 * for `lingerMs`. Fails after `timeoutMs`.
 */
export function rawRequest(port: number, bytes: string | Buffer, opts: { timeoutMs?: number; lingerMs?: number } = {}): Promise<RawReply> {
  const { timeoutMs = 10_000, lingerMs = 300 } = opts;
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let linger: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString().slice(0, 300)}`));
    }, timeoutMs);
    const finish = (closed: boolean): void => {
      const reply = parse(Buffer.concat(chunks), closed);
      if (!reply) {
        if (closed) {
          clearTimeout(timer);
          reject(new Error(`connection closed without an answer: ${Buffer.concat(chunks).toString().slice(0, 300)}`));
        }
        return;
      }
      clearTimeout(linger);
      if (closed) {
        clearTimeout(timer);
        resolve(reply);
        return;
      }
      linger = setTimeout(() => {
        clearTimeout(timer);
        socket.destroy();
        resolve(reply);
      }, lingerMs);
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

/** A GET with the given request target, as sent on the wire. */
export function rawGet(port: number, target: string, headers: Record<string, string> = {}): Promise<RawReply> {
  const lines = [`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''];
  return rawRequest(port, lines.join('\r\n'));
}

/** Polls /livez every `everyMs` until stopped; reports the slowest answer and any failure. */
export function livezProbe(url: string, everyMs = 200): { stop(): Promise<{ slowestMs: number; failures: string[]; probes: number }> } {
  let running = true;
  let slowestMs = 0;
  let probes = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const res = await fetch(`${url}/livez`, { signal: AbortSignal.timeout(5000) });
        if (res.status !== 200) failures.push(`livez ${res.status}`);
        await res.text();
      } catch (err) {
        failures.push(`livez: ${(err as Error).message}`);
      }
      slowestMs = Math.max(slowestMs, Date.now() - started);
      probes++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { slowestMs, failures, probes };
    },
  };
}
