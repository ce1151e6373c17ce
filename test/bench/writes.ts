import { fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { freePort } from '../../src/server/embedded-etcd';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { fmt, measureCpu, request, runLoad, type BenchEnv, type LoadResult } from './harness';

/**
 * Creates and gets through kapi (HTTP, JSON) beside the same shapes straight on etcd through the
 * same etcd3 client: a guarded create transaction and a key read, at the same concurrency. A floor
 * server (HTTP, JSON, one transaction, nothing else) shows how much of the gap any Node.js API
 * server in one process would have on this machine.
 */

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const COUNT = Number(process.env.BENCH_WRITES ?? 3000);

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { bench: 'writes' } }, data: { key: 'x'.repeat(200) } });
}

function row(label: string, r: LoadResult): string {
  return `  ${label.padEnd(28)} ${fmt(r.opsPerSecond, 0).padStart(8)} ops/s   p50 ${fmt(r.p50Ms, 2).padStart(7)} ms   p99 ${fmt(r.p99Ms, 2).padStart(7)} ms`;
}

export async function benchWrites(env: BenchEnv): Promise<Record<string, number>> {
  const kv = new Etcd3Kv({ endpoints: [env.etcd.endpoint] });
  const ns = `${env.kapiUrl}/api/v1/namespaces/default/configmaps`;
  // Warm up both paths so that connection set-up is not measured.
  await runLoad(200, CONCURRENCY, async (i) => {
    await request(ns, 'POST', configMap(`warm-${i}`));
    await kv.create(`/bench-raw/warm-${i}`, Buffer.from(configMap(`warm-${i}`)));
  });

  const pids = { kapi: env.kapi.pid!, etcd: env.etcdPid, client: process.pid };
  const raw = await measureCpu(pids, COUNT, () =>
    runLoad(COUNT, CONCURRENCY, async (i) => {
      const res = await kv.create(`/bench-raw/cm-${i}`, Buffer.from(configMap(`cm-${i}`)));
      if (!res.ok) throw new Error('raw create failed');
    }),
  );
  const kapi = await measureCpu(pids, COUNT, () =>
    runLoad(COUNT, CONCURRENCY, async (i) => {
      const res = await request(ns, 'POST', configMap(`cm-${i}`));
      if (res.status !== 201) throw new Error(`kapi create: ${res.status} ${res.body.toString()}`);
    }),
  );
  const floorPort = await freePort();
  const floorServer = fork(path.join(__dirname, 'floor-server.js'), [env.etcd.endpoint, String(floorPort)], { stdio: 'inherit' });
  await once(floorServer, 'message');
  const floorUrl = `http://127.0.0.1:${floorPort}/`;
  await runLoad(200, CONCURRENCY, async (i) => void (await request(floorUrl, 'POST', configMap(`warm-${i}`))));
  const floor = await runLoad(COUNT, CONCURRENCY, async (i) => {
    const res = await request(floorUrl, 'POST', configMap(`cm-${i}`));
    if (res.status !== 201) throw new Error(`floor create: ${res.status}`);
  });
  floorServer.kill();
  const rawGet = await runLoad(COUNT, CONCURRENCY, async (i) => {
    const res = await kv.get(`/bench-raw/cm-${i % COUNT}`);
    if (!res.kv) throw new Error('raw get failed');
  });
  const kapiGet = await runLoad(COUNT, CONCURRENCY, async (i) => {
    const res = await request(`${ns}/cm-${i % COUNT}`, 'GET');
    if (res.status !== 200) throw new Error(`kapi get: ${res.status}`);
  });
  await kv.close();

  console.log(`\nwrites and reads (${COUNT} each, ${CONCURRENCY} concurrent clients)`);
  console.log(row('raw etcd create txn', raw.result));
  console.log(row('kapi POST configmap', kapi.result));
  console.log(row('floor: HTTP + one txn', floor));
  console.log(row('raw etcd get', rawGet));
  console.log(row('kapi GET configmap', kapiGet));
  const cpu = (m: Record<string, number>): string => Object.entries(m).map(([k, v]) => `${k} ${fmt(v, 0)}`).join(', ');
  console.log(`  CPU µs per create: raw [${cpu(raw.cpuUsPerOp)}]  kapi [${cpu(kapi.cpuUsPerOp)}]`);
  const createRatio = kapi.result.opsPerSecond / raw.result.opsPerSecond;
  const getRatio = kapiGet.opsPerSecond / rawGet.opsPerSecond;
  console.log(`  creates ratio kapi/raw: ${fmt(createRatio, 2)}  (target >= 0.70)${createRatio >= 0.7 ? '' : '  BELOW TARGET'}`);
  console.log(`  creates ratio floor/raw: ${fmt(floor.opsPerSecond / raw.result.opsPerSecond, 2)}  (what HTTP and JSON alone leave of raw etcd here)`);
  console.log(`  creates ratio kapi/floor: ${fmt(kapi.result.opsPerSecond / floor.opsPerSecond, 2)}  (the cost of the API machinery itself)`);
  console.log(`  gets ratio kapi/raw:    ${fmt(getRatio, 2)}`);
  return { createRatio, getRatio };
}
