import http from 'node:http';
import { fmt, percentile, request, type BenchEnv } from './harness';

/** Delivery latency of watch events to many concurrent watchers while writes arrive at a steady rate. */

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 500);
const WRITES_PER_SECOND = Number(process.env.BENCH_WATCH_WRITES_PER_SECOND ?? 20);
const SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? 10);

interface Watcher {
  req: http.ClientRequest;
  received: number;
}

function openWatcher(url: string, sent: Map<string, bigint>, latencies: number[]): Promise<Watcher> {
  return new Promise((resolve, reject) => {
    const watcher: Watcher = { req: null as unknown as http.ClientRequest, received: 0 };
    watcher.req = http.get(url, { agent: false }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          const name = /"name":"([^"]+)"/.exec(line)?.[1];
          const at = name ? sent.get(name) : undefined;
          if (at !== undefined) {
            latencies.push(Number(process.hrtime.bigint() - at) / 1e6);
            watcher.received++;
          }
        }
      });
      resolve(watcher);
    });
    watcher.req.on('error', reject);
  });
}

export async function benchWatchLatency(env: BenchEnv): Promise<Record<string, number>> {
  await request(`${env.kapiUrl}/api/v1/namespaces`, 'POST', JSON.stringify({ metadata: { name: 'bench-watch' } }));
  const base = `${env.kapiUrl}/api/v1/namespaces/bench-watch/configmaps`;
  const start = JSON.parse((await request(base, 'GET')).body.toString()).metadata.resourceVersion;
  const sent = new Map<string, bigint>();
  const latencies: number[] = [];
  const watchers: Watcher[] = [];
  for (let i = 0; i < WATCHERS; i++) watchers.push(await openWatcher(`${base}?watch=1&resourceVersion=${start}`, sent, latencies));
  const total = WRITES_PER_SECOND * SECONDS;
  const interval = 1000 / WRITES_PER_SECOND;
  const began = Date.now();
  for (let i = 0; i < total; i++) {
    const due = began + i * interval;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const name = `w-${i}`;
    sent.set(name, process.hrtime.bigint());
    const res = await request(base, 'POST', JSON.stringify({ metadata: { name }, data: { i: String(i) } }));
    if (res.status !== 201) throw new Error(`write: ${res.status}`);
  }
  const expected = total * WATCHERS;
  const deadline = Date.now() + 30_000;
  while (latencies.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const w of watchers) w.req.destroy();
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  console.log(`\nwatch delivery (${WATCHERS} watchers, ${WRITES_PER_SECOND} writes/s for ${SECONDS}s: ${expected} deliveries expected)`);
  console.log(
    `  delivered ${latencies.length}   p50 ${fmt(p50, 1)} ms   p99 ${fmt(p99, 1)} ms  (target p99 < 100 ms)${p99 < 100 && latencies.length === expected ? '' : '  BELOW TARGET'}`,
  );
  return { watchP50: p50, watchP99: p99, delivered: latencies.length / expected };
}
