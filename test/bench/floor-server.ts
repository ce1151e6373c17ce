import http from 'node:http';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';

/**
 * The least an API server must do per create: read the HTTP body, parse it, run one guarded etcd
 * transaction through the same client, write the object back. The bench measures it beside kapi
 * so that the creates ratio has a reference point on the machine it runs on.
 * Started by the bench as `node floor-server.js ETCD_URL PORT`; says "ready" over IPC.
 */
const [endpoint, port] = process.argv.slice(2);
const kv = new Etcd3Kv({ endpoints: [endpoint] });
let sequence = 0;

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const object = JSON.parse(Buffer.concat(chunks).toString()) as unknown;
      const body = JSON.stringify(object);
      kv.create(`/bench-floor/${sequence++}`, Buffer.from(body)).then(
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
