import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { fmt, measureCpu, request, runLoad, type BenchEnv, type LoadResult } from './harness';

/**
 * Creates and gets through kapi (HTTP, JSON) beside the same shapes straight on etcd through the
 * same etcd3 client: a guarded create transaction and a key read, at the same concurrency.
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
  console.log(row('raw etcd get', rawGet));
  console.log(row('kapi GET configmap', kapiGet));
  const cpu = (m: Record<string, number>): string => Object.entries(m).map(([k, v]) => `${k} ${fmt(v, 0)}`).join(', ');
  console.log(`  CPU µs per create: raw [${cpu(raw.cpuUsPerOp)}]  kapi [${cpu(kapi.cpuUsPerOp)}]`);
  const createRatio = kapi.result.opsPerSecond / raw.result.opsPerSecond;
  const getRatio = kapiGet.opsPerSecond / rawGet.opsPerSecond;
  console.log(`  creates ratio kapi/raw: ${fmt(createRatio, 2)}  (target >= 0.70)${createRatio >= 0.7 ? '' : '  BELOW TARGET'}`);
  console.log(`  gets ratio kapi/raw:    ${fmt(getRatio, 2)}`);
  return { createRatio, getRatio };
}
