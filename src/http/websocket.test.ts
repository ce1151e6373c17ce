import type { IncomingMessage } from 'node:http';
import { Duplex } from 'node:stream';
import { webSocketHandshake, WebSocketSender } from './websocket';

const request = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;
const client = { 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13', origin: 'https://ui.example' };

describe('webSocketHandshake (x/net/websocket Handler)', () => {
  test("accepts with RFC 6455's accept value and echoes the one protocol offered", () => {
    expect(webSocketHandshake(request({ ...client, 'sec-websocket-protocol': ' binary.k8s.io ' }))).toEqual({
      accept:
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: binary.k8s.io\r\n\r\n',
    });
  });

  test('refuses as Go does: no key, a bad version, no or a null Origin, several protocols', () => {
    expect(webSocketHandshake(request({ ...client, 'sec-websocket-key': '' }))).toEqual({
      code: 400,
      raw: 'HTTP/1.1 400 Bad Request\r\n\r\nmismatch challenge/response',
    });
    expect(webSocketHandshake(request({ ...client, 'sec-websocket-version': '7' }))).toEqual({
      code: 400,
      raw: 'HTTP/1.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version',
    });
    const { origin: _, ...withoutOrigin } = client;
    for (const headers of [withoutOrigin, { ...client, origin: 'null' }, { ...client, origin: 'ui.example' }]) {
      expect(webSocketHandshake(request(headers))).toEqual({ code: 403, raw: 'HTTP/1.1 403 Forbidden\r\n\r\n' });
    }
    expect(webSocketHandshake(request({ ...client, 'sec-websocket-protocol': 'a, b' }))).toEqual({ code: 400, raw: 'HTTP/1.1 400 Bad Request\r\n\r\n' });
  });
});

function socket(): { duplex: Duplex; written: Buffer[]; ended: () => boolean } {
  const written: Buffer[] = [];
  let ended = false;
  const duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk);
      done();
    },
    final(done) {
      ended = true;
      done();
    },
  });
  return { duplex, written, ended: () => ended };
}

function masked(opcode: number, payload: Buffer, mask = Buffer.from([1, 2, 3, 4])): Buffer {
  const data = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), mask, data]);
}

describe('WebSocketSender', () => {
  const signal = new AbortController().signal;

  test('frames messages: text and binary, with 16- and 64-bit lengths', async () => {
    const s = socket();
    const sender = new WebSocketSender(s.duplex, Buffer.alloc(0));
    await sender.send(Buffer.from('{"type":"ADDED"}\n'), true, signal);
    await sender.send(Buffer.alloc(300, 7), false, signal);
    await sender.send(Buffer.alloc(70_000, 7), false, signal);
    expect(s.written[0]).toEqual(Buffer.concat([Buffer.from([0x81, 17]), Buffer.from('{"type":"ADDED"}\n')]));
    expect([...s.written[1].subarray(0, 4)]).toEqual([0x82, 126, 0x01, 0x2c]);
    expect([...s.written[2].subarray(0, 10)]).toEqual([0x82, 127, 0, 0, 0, 0, 0, 0x01, 0x11, 0x70]);
  });

  test('answers a ping split across reads, ignores data, and ends at a close frame with a normal close', async () => {
    const s = socket();
    const sender = new WebSocketSender(s.duplex, Buffer.alloc(0));
    const ping = masked(9, Buffer.from('hi'));
    s.duplex.push(ping.subarray(0, 3));
    s.duplex.push(Buffer.concat([ping.subarray(3), masked(1, Buffer.from('ignored'))]));
    s.duplex.push(masked(8, Buffer.from([0x03, 0xe8])));
    await sender.closed;
    expect(s.written[0]).toEqual(Buffer.from([0x8a, 2, 0x68, 0x69]));
    expect(s.written[1]).toEqual(Buffer.from([0x88, 2, 0x03, 0xe8]));
    expect(await sender.send(Buffer.from('late'), true, signal)).toBe(false);
  });

  test('an unmasked client frame is a protocol error (1002)', async () => {
    const s = socket();
    const sender = new WebSocketSender(s.duplex, Buffer.alloc(0));
    s.duplex.push(Buffer.from([0x81, 1, 0x41]));
    await sender.closed;
    expect(s.written[0]).toEqual(Buffer.from([0x88, 2, 0x03, 0xea]));
  });
});
