import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { Encoding } from '../../src/codec/negotiate';
import { protoRoot } from '../../src/schema/proto-loader';
import { encode, listPieces } from '../../src/http/encode';
import { fmt, request, runLoad, type BenchEnv } from './harness';

/**
 * Listing 10,000 pods as JSON, Protobuf and Table from kapi (time and kapi's peak memory), and the
 * cost of writing a list item by item (streamed) against building its whole body first (buffered),
 * each measured in a process of its own.
 */

const PODS = Number(process.env.BENCH_SERIALIZATION_PODS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_SERIALIZATION_ROUNDS ?? 5);

function pod(i: number): Record<string, unknown> {
  const name = `pod-${String(i).padStart(5, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'bench', shard: String(i % 16) }, annotations: { 'bench/owner': 'serialization' } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.example/app:1.2.3',
          args: ['--port=8080', '--log-level=info'],
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'MODE', value: 'bench' }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
        },
      ],
      nodeName: `node-${i % 50}`,
    },
  };
}

/** Resident-set peak of a process since the last reset (Linux: /proc/<pid>/clear_refs "5"). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? 0);
}

interface WorkerResult {
  coldMs: number;
  warmMs: number;
  peakMb: number;
  bytes: number;
}

/** In a child process: one encoding, streamed or buffered, into a sink that drops the bytes. */
async function worker(encoding: Encoding, mode: 'streamed' | 'buffered'): Promise<WorkerResult> {
  const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '1' }, items: Array.from({ length: PODS }, (_, i) => pod(i)) };
  const sink = new Writable({ write: (_c, _e, done) => done() });
  // The .proto schema is loaded once per server; not part of what is measured.
  protoRoot();
  const baseline = process.memoryUsage().rss;
  const once = (): number => {
    let bytes = 0;
    if (mode === 'buffered') {
      const body = encode(list, encoding, false);
      bytes = body.length;
      sink.write(body);
    } else {
      for (const piece of listPieces(list, encoding, false)!) {
        bytes += piece.length;
        sink.write(piece);
      }
    }
    return bytes;
  };
  let started = process.hrtime.bigint();
  const bytes = once();
  const coldMs = Number(process.hrtime.bigint() - started) / 1e6;
  started = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) once();
  const warmMs = Number(process.hrtime.bigint() - started) / 1e6 / ROUNDS;
  const peakMb = (process.resourceUsage().maxRSS * 1024 - baseline) / 1024 / 1024;
  return { coldMs, warmMs, peakMb, bytes };
}

function runWorker(encoding: Encoding, mode: 'streamed' | 'buffered'): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['serialization-worker', encoding, mode], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (m) => resolve(m as WorkerResult));
    child.once('exit', (code) => code !== 0 && reject(new Error(`serialization worker exited ${code}`)));
  });
}

export async function benchSerialization(env: BenchEnv): Promise<Record<string, number>> {
  await request(`${env.kapiUrl}/api/v1/namespaces`, 'POST', JSON.stringify({ metadata: { name: 'bench-ser' } }));
  const base = `${env.kapiUrl}/api/v1/namespaces/bench-ser/pods`;
  await runLoad(PODS, 32, async (i) => {
    const res = await request(base, 'POST', JSON.stringify(pod(i)));
    if (res.status !== 201) throw new Error(`create pod: ${res.status} ${res.body.toString()}`);
  });
  const formats: [string, string][] = [
    ['JSON', 'application/json'],
    ['Protobuf', 'application/vnd.kubernetes.protobuf'],
    ['Table', 'application/json;as=Table;g=meta.k8s.io;v=v1'],
  ];
  const pid = env.kapi.pid!;
  const results: Record<string, number> = {};
  console.log(`\nlist of ${PODS} pods from the watch cache (rv=0), ${ROUNDS} rounds each, one at a time`);
  for (const [name, accept] of formats) {
    const before = statusKb(pid, 'VmRSS');
    resetPeak(pid);
    let size = 0;
    const load = await runLoad(ROUNDS, 1, async () => {
      const res = await request(`${base}?resourceVersion=0`, 'GET', undefined, { Accept: accept });
      if (res.status !== 200) throw new Error(`list ${name}: ${res.status}`);
      size = res.body.length;
    });
    const peakMb = (statusKb(pid, 'VmHWM') - before) / 1024;
    results[`list${name}Ms`] = load.p50Ms;
    results[`list${name}PeakMb`] = peakMb;
    console.log(
      `  ${name.padEnd(9)} p50 ${fmt(load.p50Ms).padStart(7)} ms   body ${fmt(size / 1024 / 1024, 2).padStart(6)} MiB   kapi peak RSS +${fmt(peakMb).padStart(6)} MiB`,
    );
  }

  console.log(`\nserialising ${PODS} pods in-process, streamed (item by item) vs buffered (one body), a process each`);
  for (const encoding of ['json', 'protobuf'] as const) {
    const streamed = await runWorker(encoding, 'streamed');
    const buffered = await runWorker(encoding, 'buffered');
    const timeRatio = streamed.coldMs / buffered.coldMs;
    const memRatio = streamed.peakMb / buffered.peakMb;
    results[`${encoding}StreamedTimeRatio`] = timeRatio;
    results[`${encoding}StreamedMemoryRatio`] = memRatio;
    for (const [mode, r] of [
      ['streamed', streamed],
      ['buffered', buffered],
    ] as const) {
      console.log(
        `  ${encoding.padEnd(8)} ${mode.padEnd(8)}  first ${fmt(r.coldMs).padStart(7)} ms   again ${fmt(r.warmMs).padStart(7)} ms   peak RSS +${fmt(r.peakMb).padStart(6)} MiB   ${fmt(r.bytes / 1024 / 1024, 2)} MiB`,
      );
    }
    console.log(`  ${encoding.padEnd(8)} streamed/buffered: time ${fmt(timeRatio, 2)}x, memory ${fmt(memRatio, 2)}x`);
  }
  await deletePods(base);
  return results;
}

/**
 * The pods are bound to nodes that do not exist, so kapi's pod garbage collector deletes them 40 s
 * after their creation, as kube's PodGC deletes orphans: 10,000 deletes in whatever section runs
 * then (the control plane's 1,000-pod rollout took 9.5-13.9 s instead of 6 s beside them). They
 * go here instead, at once (no grace period: no kubelet would confirm a graceful one).
 */
async function deletePods(base: string): Promise<void> {
  const res = await request(`${base}?gracePeriodSeconds=0`, 'DELETE');
  if (res.status !== 200) throw new Error(`delete pods: ${res.status} ${res.body.toString()}`);
  const left = await request(`${base}?limit=1`, 'GET');
  const items = (JSON.parse(left.body.toString()) as { items: unknown[] }).items;
  if (items.length > 0) throw new Error('delete pods: some are left');
}

if (require.main === module && process.argv[2] === 'serialization-worker') {
  worker(process.argv[3] as Encoding, process.argv[4] as 'streamed' | 'buffered')
    .then((result) => {
      process.send!(result);
      process.disconnect();
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
