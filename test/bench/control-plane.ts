import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cpuSeconds, fmt, percentile, request, startKapiProcess, type BenchEnv } from './harness';
import { watchMachine } from './machine-watch';

/**
 * Issue 22's targets, on a second kapi process over the same etcd with 100 simulated nodes (its
 * scheduler and controllers on): a Deployment of 3 from create to Available (target < 1 s), then
 * a Deployment of 1,000 from create to 1,000 ready pods (target < 10 s) while a probe GETs an
 * object every 20 ms (target p99 < 50 ms).
 */

const NODES = Number(process.env.BENCH_CP_NODES ?? 100);
const PODS = Number(process.env.BENCH_CP_PODS ?? 1000);
const PREFIX = '/kapi-bench-control-plane';

const deployment = (name: string, replicas: number): string =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  });

interface DeploymentStatus {
  observedGeneration?: number;
  readyReplicas?: number;
  availableReplicas?: number;
}

async function statusOf(url: string): Promise<DeploymentStatus> {
  const res = await request(url, 'GET');
  return res.status === 200 ? ((JSON.parse(res.body.toString()) as { status?: DeploymentStatus }).status ?? {}) : {};
}

/** Polls `url`'s Deployment status every `everyMs` until `done`; the milliseconds it took, or null past the deadline. */
async function timeUntil(url: string, done: (s: DeploymentStatus) => boolean, everyMs: number, deadlineMs: number, since: number): Promise<number | null> {
  for (;;) {
    if (done(await statusOf(url))) return Date.now() - since;
    if (Date.now() - since > deadlineMs) return null;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function benchControlPlane(env: BenchEnv): Promise<Record<string, number>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kapi-bench-cp-'));
  const kapi = await startKapiProcess(env.etcd, dir, [`--simulated-nodes=${NODES}`, `--etcd-prefix=${PREFIX}`]);
  try {
    const started = Date.now();
    for (;;) {
      const nodes = JSON.parse((await request(`${kapi.url}/api/v1/nodes`, 'GET')).body.toString()) as {
        items: { spec?: { taints?: { key: string }[] }; status?: { conditions?: { type: string; status: string }[] } }[];
      };
      const usable = nodes.items.filter(
        (n) =>
          (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') &&
          !(n.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready'),
      );
      if (usable.length === NODES) break;
      if (Date.now() - started > 60_000) throw new Error(`only ${usable.length} of ${NODES} simulated nodes became Ready`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const nodesReadyMs = Date.now() - started;
    const base = `${kapi.url}/apis/apps/v1/namespaces/default/deployments`;

    const t0 = Date.now();
    const small = await request(base, 'POST', deployment('web', 3));
    if (small.status !== 201) throw new Error(`create web: ${small.status}`);
    const availableMs = await timeUntil(`${base}/web`, (s) => s.observedGeneration === 1 && s.availableReplicas === 3, 10, 30_000, t0);

    const latencies: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const t = process.hrtime.bigint();
        await request(`${base}/web`, 'GET');
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const machine = await watchMachine(env.etcd.endpoint, `${PREFIX}/deployments/default/web`);
    const cpuBefore = cpuSeconds(kapi.process.pid!);
    const t1 = Date.now();
    const large = await request(base, 'POST', deployment('many', PODS));
    if (large.status !== 201) throw new Error(`create many: ${large.status}`);
    const readyMs = await timeUntil(`${base}/many`, (s) => (s.readyReplicas ?? 0) >= PODS, 250, 120_000, t1);
    const cpu = cpuSeconds(kapi.process.pid!) - cpuBefore;
    probing = false;
    await probe;
    const m = await machine.stop();
    latencies.sort((a, b) => a - b);
    const p99 = percentile(latencies, 99);

    console.log(`\ncontrol plane (a kapi with ${NODES} simulated nodes, its scheduler and controllers; nodes Ready after ${fmt(nodesReadyMs / 1000, 1)} s)`);
    console.log(
      `  Deployment of 3, create to Available:     ${availableMs === null ? 'not within 30 s' : `${availableMs} ms`}  (target < 1000 ms)${availableMs !== null && availableMs < 1000 ? '' : '  BELOW TARGET'}`,
    );
    console.log(
      `  Deployment of ${PODS}, create to all ready: ${readyMs === null ? 'not within 120 s' : `${fmt(readyMs / 1000, 1)} s`}  (target < 10 s)${readyMs !== null && readyMs < 10_000 ? '' : '  BELOW TARGET'}; kapi CPU ${fmt(cpu, 1)} s`,
    );
    console.log(
      `  GET during it (every 20 ms):  p50 ${fmt(percentile(latencies, 50), 1)} ms  p99 ${fmt(p99, 1)} ms  (target p99 < 50 ms)${p99 < 50 ? '' : '  BELOW TARGET'}`,
    );
    console.log(
      `  meanwhile, outside kapi: etcd's own GET p50 ${fmt(m.etcdGetP50Ms, 1)} ms  p99 ${fmt(m.etcdGetP99Ms, 1)} ms  max ${fmt(m.etcdGetMaxMs, 0)} ms; ` +
        `WAL fsyncs > 128 ms: ${m.walFsyncsOver128Ms} (mean ${fmt(m.walFsyncMeanMs, 2)} ms); disk stalled up to ${fmt(m.diskStallMaxMs, 0)} ms; ` +
        `other processes used ${fmt(m.otherCores, 2)} cores (this bench ${fmt(m.ownCores, 2)})`,
    );
    return { availableMs: availableMs ?? NaN, thousandReadyMs: readyMs ?? NaN, getP99Ms: p99, etcdGetP99Ms: m.etcdGetP99Ms, otherCores: m.otherCores };
  } finally {
    await kapi.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
