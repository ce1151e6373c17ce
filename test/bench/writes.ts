import { fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { freePort } from '../../src/server/embedded-etcd';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { fmt, measureCpu, nodeArgs, request, runLoad, type BenchEnv, type LoadResult } from './harness';

/**
 * Creates and gets through kapi (HTTP, JSON) beside the same shapes straight on etcd through the
 * same etcd3 client: a guarded create transaction and a key read, at the same concurrency. A floor
 * server (HTTP, JSON, one transaction, nothing else) shows how much of the gap any Node.js API
 * server in one process would have on this machine.
 */

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const COUNT = Number(process.env.BENCH_WRITES ?? 4000);
/** Enough operations for V8 to have optimised the hot paths of every process before measuring. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 4000);
/** Turns each create target takes, a share of COUNT each time (see interleaved). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { bench: 'writes' } }, data: { key: 'x'.repeat(200) } });
}

function row(label: string, r: LoadResult): string {
  return `  ${label.padEnd(28)} ${fmt(r.opsPerSecond, 0).padStart(8)} ops/s   p50 ${fmt(r.p50Ms, 2).padStart(7)} ms   p99 ${fmt(r.p99Ms, 2).padStart(7)} ms`;
}

/** A floor server (see floor-server.ts) started with `args`, warmed up like kapi; `url` takes creates. */
async function startFloor(env: BenchEnv, args: string[]): Promise<{ url: string; pid: number; stop: () => void }> {
  const port = await freePort();
  const server = fork(path.join(__dirname, 'floor-server.js'), [env.etcd.endpoint, String(port), ...args], { stdio: 'inherit', execArgv: nodeArgs() });
  await once(server, 'message');
  const url = `http://127.0.0.1:${port}/`;
  await runLoad(WARMUP, CONCURRENCY, async (i) => void (await request(url, 'POST', configMap(`warm-${i}`))));
  return { url, pid: server.pid!, stop: () => server.kill() };
}

/** One server's creates measured over every round: its load and the CPU per create of each process watched. */
interface Measured {
  result: LoadResult;
  cpuUsPerOp: Record<string, number>;
}

/**
 * Creates through each target in turn, a share of COUNT per round, ROUNDS times, so that the machine
 * each one is measured on is the same: a busy minute on a shared machine lands on all of them,
 * not on whichever ran then (one run of kapi then one of each floor moved the CPU ratio by 0.3).
 */
async function interleaved(targets: Record<string, { create: (i: number) => Promise<void>; pids: Record<string, number> }>): Promise<Record<string, Measured>> {
  const perRound = Math.ceil(COUNT / ROUNDS);
  const runs: Record<string, { results: LoadResult[]; cpu: Record<string, number>[] }> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, target] of Object.entries(targets)) {
      const offset = round * perRound;
      const { result, cpuUsPerOp } = await measureCpu(target.pids, perRound, () => runLoad(perRound, CONCURRENCY, (i) => target.create(offset + i)));
      (runs[name] ??= { results: [], cpu: [] }).results.push(result);
      runs[name].cpu.push(cpuUsPerOp);
    }
  }
  return Object.fromEntries(
    Object.entries(runs).map(([name, { results, cpu }]) => {
      const average = (pick: (r: LoadResult) => number): number => results.reduce((sum, r) => sum + pick(r), 0) / results.length;
      const seconds = results.reduce((sum, r) => sum + r.count / r.opsPerSecond, 0);
      const cpuUsPerOp = Object.fromEntries(Object.keys(cpu[0]).map((k) => [k, cpu.reduce((sum, c) => sum + c[k], 0) / cpu.length]));
      // Percentiles are averaged over the rounds (each round's own p50 and p99).
      const result: LoadResult = {
        opsPerSecond: (perRound * ROUNDS) / seconds,
        p50Ms: average((r) => r.p50Ms),
        p99Ms: average((r) => r.p99Ms),
        count: perRound * ROUNDS,
      };
      return [name, { result, cpuUsPerOp }];
    }),
  );
}

export async function benchWrites(env: BenchEnv): Promise<Record<string, number>> {
  const kv = new Etcd3Kv({ endpoints: [env.etcd.endpoint] });
  const ns = `${env.kapiUrl}/api/v1/namespaces/default/configmaps`;
  // Warm up both paths so that connection set-up is not measured.
  await runLoad(WARMUP, CONCURRENCY, async (i) => {
    await request(ns, 'POST', configMap(`warm-${i}`));
    await kv.create(`/bench-raw/warm-${i}`, Buffer.from(configMap(`warm-${i}`)));
  });

  const pids = { kapi: env.kapi.pid!, etcd: env.etcdPid, client: process.pid };
  const floorServer = await startFloor(env, []);
  const floorWatchServer = await startFloor(env, ['watch']);
  let measured: Record<string, Measured>;
  try {
    const floorCreate = (url: string) => async (i: number) => {
      const res = await request(url, 'POST', configMap(`cm-${i}`));
      if (res.status !== 201) throw new Error(`floor create: ${res.status}`);
    };
    measured = await interleaved({
      raw: {
        pids,
        create: async (i) => {
          const res = await kv.create(`/bench-raw/cm-${i}`, Buffer.from(configMap(`cm-${i}`)));
          if (!res.ok) throw new Error('raw create failed');
        },
      },
      kapi: {
        pids,
        create: async (i) => {
          const res = await request(ns, 'POST', configMap(`cm-${i}`));
          if (res.status !== 201) throw new Error(`kapi create: ${res.status} ${res.body.toString()}`);
        },
      },
      floor: { pids: { floor: floorServer.pid, etcd: env.etcdPid, client: process.pid }, create: floorCreate(floorServer.url) },
      floorWatch: { pids: { floor: floorWatchServer.pid, etcd: env.etcdPid, client: process.pid }, create: floorCreate(floorWatchServer.url) },
    });
  } finally {
    floorServer.stop();
    floorWatchServer.stop();
  }
  const { raw, kapi, floor, floorWatch } = measured;
  // One Range call per read, as a client of etcd makes it (kv.get would share transactions, as kapi's reads do).
  const rawGet = await runLoad(COUNT, CONCURRENCY, async (i) => {
    const key = `/bench-raw/cm-${i % COUNT}`;
    const res = await kv.range(key, `${key}\0`);
    if (res.kvs.length !== 1) throw new Error('raw get failed');
  });
  const kapiGet = await measureCpu(pids, COUNT, () =>
    runLoad(COUNT, CONCURRENCY, async (i) => {
      const res = await request(`${ns}/cm-${i % COUNT}`, 'GET');
      if (res.status !== 200) throw new Error(`kapi get: ${res.status}`);
    }),
  );
  await kv.close();

  console.log(`\nwrites and reads (${COUNT} each, creates in ${ROUNDS} interleaved rounds, ${CONCURRENCY} concurrent clients)`);
  console.log(row('raw etcd create txn', raw.result));
  console.log(row('kapi POST configmap', kapi.result));
  console.log(row('floor: HTTP + one txn', floor.result));
  console.log(row('floor + etcd watch ingest', floorWatch.result));
  console.log(row('raw etcd get', rawGet));
  console.log(row('kapi GET configmap', kapiGet.result));
  const cpu = (m: Record<string, number>): string =>
    Object.entries(m)
      .map(([k, v]) => `${k} ${fmt(v, 0)}`)
      .join(', ');
  console.log(
    `  CPU µs per create: raw [${cpu(raw.cpuUsPerOp)}]  floor [${cpu(floor.cpuUsPerOp)}]  floor+watch [${cpu(floorWatch.cpuUsPerOp)}]  kapi [${cpu(kapi.cpuUsPerOp)}]`,
  );
  const createRatio = kapi.result.opsPerSecond / raw.result.opsPerSecond;
  const getRatio = kapiGet.result.opsPerSecond / rawGet.opsPerSecond;
  console.log(`  creates ratio kapi/raw: ${fmt(createRatio, 2)}  (target >= 0.70)${createRatio >= 0.7 ? '' : '  BELOW TARGET'}`);
  console.log(`  creates ratio floor/raw: ${fmt(floor.result.opsPerSecond / raw.result.opsPerSecond, 2)}  (what HTTP and JSON alone leave of raw etcd here)`);
  console.log(
    `  creates ratio floor+watch/raw: ${fmt(floorWatch.result.opsPerSecond / raw.result.opsPerSecond, 2)}  (the same, also ingesting the etcd watch a cache needs)`,
  );
  const floorRatio = kapi.result.opsPerSecond / floorWatch.result.opsPerSecond;
  const cpuRatio = kapi.cpuUsPerOp.kapi / floorWatch.cpuUsPerOp.floor;
  console.log(
    `  creates ratio kapi/floor+watch: ${fmt(floorRatio, 2)}  (the cost of the API machinery itself; target >= 0.65)${floorRatio >= 0.65 ? '' : '  BELOW TARGET'}`,
  );
  console.log(`  CPU per create, kapi/floor+watch: ${fmt(cpuRatio, 2)}x  (target <= 1.6)${cpuRatio <= 1.6 ? '' : '  ABOVE TARGET'}`);
  console.log(
    `  gets ratio kapi/raw:    ${fmt(getRatio, 2)}  (target >= 0.7)${getRatio >= 0.7 ? '' : '  BELOW TARGET'}   kapi CPU per GET ${fmt(kapiGet.cpuUsPerOp.kapi, 0)} µs`,
  );
  return { createRatio, getRatio, floorRatio, cpuRatio };
}
