import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { OutputChoice } from '../codec/negotiate';
import * as protobufWrite from '../codec/protobuf-write';
import { encode } from './encode';
import { writeEncoded } from './respond';

const JSON_OUTPUT: OutputChoice = { encoding: 'json', contentType: 'application/json', representation: { kind: 'object' }, pretty: false };
const PROTOBUF_OUTPUT: OutputChoice = { ...JSON_OUTPUT, encoding: 'protobuf', contentType: 'application/vnd.kubernetes.protobuf' };

/** A ConfigMapList large enough that encoding it outlasts a loop slice many times over. */
const list = {
  kind: 'ConfigMapList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '7' },
  items: Array.from({ length: 20_000 }, (_, i) => ({ metadata: { name: `cm-${i}`, namespace: 'default' }, data: { k: 'v'.repeat(200) } })),
};

test.each([
  ['JSON', JSON_OUTPUT, false],
  // Protobuf's envelope needs the items' length first: they are encoded, in slices, before the list is framed.
  ['Protobuf', PROTOBUF_OUTPUT, true],
])(
  'a large list in %s is written in slices: the event loop turns while it is encoded, and the body is the whole list',
  async (_name, output, encodesAhead) => {
    let turns = 0;
    let writing = false;
    const spin = (): void => {
      if (!writing) return;
      turns++;
      setImmediate(spin);
    };
    let turnsBeforeFraming: number | undefined;
    const frame = protobufWrite.protobufListParts;
    jest.spyOn(protobufWrite, 'protobufListParts').mockImplementation((...args) => {
      turnsBeforeFraming = turns;
      return frame(...args);
    });
    const server = http.createServer((_req, res) => {
      writing = true;
      setImmediate(spin);
      void writeEncoded(res, 200, structuredClone(list), output, false, true).finally(() => (writing = false));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/', headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
      expect(body.encoding).toBe('gzip');
      expect(gunzipSync(body.bytes).equals(encode(list, output.encoding, false))).toBe(true);
      expect(turns).toBeGreaterThan(0);
      if (encodesAhead) expect(turnsBeforeFraming).toBeGreaterThan(0);
    } finally {
      writing = false;
      jest.restoreAllMocks();
      await new Promise((resolve) => server.close(resolve));
    }
  },
  30_000,
);
