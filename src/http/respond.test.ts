import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { OutputChoice } from '../codec/negotiate';
import { writeEncoded } from './respond';

const JSON_OUTPUT: OutputChoice = { encoding: 'json', contentType: 'application/json', representation: { kind: 'object' }, pretty: false };

/** A ConfigMapList large enough that encoding it outlasts a loop slice many times over. */
const list = {
  kind: 'ConfigMapList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '7' },
  items: Array.from({ length: 20_000 }, (_, i) => ({ metadata: { name: `cm-${i}`, namespace: 'default' }, data: { k: 'v'.repeat(200) } })),
};

test('a large list is written in slices: the event loop turns while it is encoded, and the body is the whole list', async () => {
  let turns = 0;
  let writing = false;
  const spin = (): void => {
    if (!writing) return;
    turns++;
    setImmediate(spin);
  };
  const server = http.createServer((_req, res) => {
    writing = true;
    setImmediate(spin);
    void writeEncoded(res, 200, list, JSON_OUTPUT, false, true).finally(() => (writing = false));
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
    expect(JSON.parse(gunzipSync(body.bytes).toString())).toEqual(list);
    expect(turns).toBeGreaterThan(0);
  } finally {
    writing = false;
    await new Promise((resolve) => server.close(resolve));
  }
}, 30_000);
