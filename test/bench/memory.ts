import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, request, runLoad, startKapiProcess, type BenchEnv } from './harness';

/**
 * Memory per cached object (issue 21: 50,000 pods in at most 400 MiB RSS). A kapi on its own etcd
 * prefix is measured empty, given BENCH_MEMORY_PODS pods through its API, then started again, so
 * that what is measured is a server that has listed them all into its watch cache and settled,
 * not the garbage of the creates. The pods name a scheduler no one runs: they stay as written.
 */

const PODS = Number(process.env.BENCH_MEMORY_PODS ?? 50_000);
const TARGET_MIB_AT_50K = 400;
const SETTLE_MS = 5000;

function pod(i: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-${i}`,
      labels: { app: 'web', tier: 'frontend', shard: String(i % 16) },
      annotations: { 'bench.kapi.dev/revision': '1' },
    },
    spec: {
      schedulerName: 'bench-unscheduled',
      containers: [
        {
          name: 'web',
          image: 'registry.example/web:1.2.3',
          ports: [{ name: 'http', containerPort: 8080 }],
          env: [
            { name: 'MODE', value: 'production' },
            { name: 'SHARD', value: String(i % 16) },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
        },
      ],
      volumes: [{ name: 'cache', emptyDir: {} }],
    },
  });
}

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

/** Node flags that let SIGUSR2 run a full garbage collection in kapi (gc-on-signal.ts). */
const GC_ON_SIGNAL = ['--expose-gc', '--require', path.join(__dirname, 'gc-on-signal.js')];

export async function benchMemory(env: BenchEnv): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kapi-bench-memory-'));
  const flags = ['--etcd-prefix=/bench-memory'];
  try {
    const empty = await startKapiProcess(env.etcd, dataDir, flags);
    await settle();
    const emptyMiB = rssMiB(empty.process.pid!);
    const pods = `${empty.url}/api/v1/namespaces/default/pods`;
    const load = await runLoad(PODS, 32, async (i) => {
      const res = await request(pods, 'POST', pod(i));
      if (res.status !== 201) throw new Error(`pod create: ${res.status} ${res.body.toString()}`);
    });
    await empty.stop();

    const loaded = await startKapiProcess(env.etcd, dataDir, flags, GC_ON_SIGNAL);
    await settle();
    const loadedMiB = rssMiB(loaded.process.pid!);
    // What the server holds once V8 has collected the garbage of its start (the lists from etcd).
    loaded.process.kill('SIGUSR2');
    await settle();
    const collectedMiB = rssMiB(loaded.process.pid!);
    await loaded.stop();

    const perPodKiB = ((loadedMiB - emptyMiB) * 1024) / PODS;
    const at50k = emptyMiB + (perPodKiB * 50_000) / 1024;
    console.log(`\nmemory (${PODS} pods created at ${fmt(load.opsPerSecond, 0)}/s, then kapi started again over them)`);
    console.log(`  kapi RSS empty ${fmt(emptyMiB, 0)} MiB, with the pods cached ${fmt(loadedMiB, 0)} MiB: ${fmt(perPodKiB, 2)} KiB per pod`);
    const collectedPerPodKiB = ((collectedMiB - emptyMiB) * 1024) / PODS;
    console.log(`  the same after a full garbage collection ${fmt(collectedMiB, 0)} MiB: ${fmt(collectedPerPodKiB, 2)} KiB per pod`);
    console.log(
      `  RSS at 50,000 pods: ${fmt(at50k, 0)} MiB${PODS === 50_000 ? '' : ' (extrapolated)'}  (target <= ${TARGET_MIB_AT_50K})${at50k <= TARGET_MIB_AT_50K ? '' : '  ABOVE TARGET'}`,
    );
    return { emptyMiB, loadedMiB, perPodKiB, at50k, collectedMiB, collectedPerPodKiB };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
