import http from 'node:http';
import { tuneScavengerThreads } from '../../src/server/gc-threads';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';

/**
 * The least an API server must do per create: read the HTTP body, parse it, run one guarded etcd
 * transaction through the same client, write the object back. The bench measures it beside kapi
 * so that the creates ratio has a reference point on the machine it runs on. With `watch`, it also
 * keeps the least of a watch cache: one etcd watch on its keys, each event's value parsed into a map.
 * Started by the bench as `node floor-server.js ETCD_URL PORT [watch]`; says "ready" over IPC.
 */
// The floor runs its collector as the kapi binary does, so that the ratios compare request work, not GC threads.
tuneScavengerThreads();
const [endpoint, port, mode] = process.argv.slice(2);
const kv = new Etcd3Kv({ endpoints: [endpoint] });
const prefix = `/bench-floor-${process.pid}/`;
let sequence = 0;
// Exit on the bench's SIGTERM through process.exit, so that a --cpu-prof profile is written.
process.on('SIGTERM', () => process.exit(0));

if (mode === 'watch') {
  const cache = new Map<string, unknown>();
  kv.watch(prefix, `${prefix.slice(0, -1)}0`, 1, {
    events: (events) => {
      for (const e of events) cache.set(e.kv.key, JSON.parse(e.kv.value.toString()));
    },
    progress: () => undefined,
    closed: (err) => {
      throw err;
    },
  });
}

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const object = JSON.parse(Buffer.concat(chunks).toString()) as unknown;
      const body = JSON.stringify(object);
      kv.create(`${prefix}${sequence++}`, Buffer.from(body)).then(
        (r) => {
          res.writeHead(r.ok ? 201 : 409, { 'Content-Type': 'application/json' });
          res.end(body);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  })
  .listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
