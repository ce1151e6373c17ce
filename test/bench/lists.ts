import { prefixEnd } from '../../src/storage/etcd/kv';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { fmt, measureCpu, request, runLoad, type BenchEnv } from './harness';

/**
 * A list of 10,000 objects from the watch cache (resourceVersion=0) beside the same list read from
 * etcd through kapi, and beside a raw etcd range of the same keys (values only, nothing decoded).
 */

const OBJECTS = Number(process.env.BENCH_LIST_OBJECTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 10);

export async function benchLists(env: BenchEnv): Promise<Record<string, number>> {
  await request(`${env.kapiUrl}/api/v1/namespaces`, 'POST', JSON.stringify({ metadata: { name: 'bench-list' } }));
  const base = `${env.kapiUrl}/api/v1/namespaces/bench-list/configmaps`;
  await runLoad(OBJECTS, 32, async (i) => {
    const body = JSON.stringify({ metadata: { name: `item-${String(i).padStart(5, '0')}`, labels: { app: 'bench' } }, data: { payload: 'y'.repeat(300) } });
    const res = await request(base, 'POST', body);
    if (res.status !== 201) throw new Error(`create: ${res.status}`);
  });
  const listOnce = (query: string) => async () => {
    const res = await request(`${base}${query}`, 'GET');
    if (res.status !== 200) throw new Error(`list: ${res.status}`);
  };
  for (const query of ['?resourceVersion=0', '']) {
    const body = (await request(`${base}${query}`, 'GET')).body.toString();
    // The namespace also holds what controllers put in every namespace (kube-root-ca.crt).
    const count = (JSON.parse(body) as { items: { metadata: { name: string } }[] }).items.filter((i) => i.metadata.name.startsWith('item-')).length;
    if (count !== OBJECTS) throw new Error(`list${query} returned ${count} items`);
  }
  const kv = new Etcd3Kv({ endpoints: [env.etcd.endpoint] });
  const prefix = '/registry/configmaps/bench-list/';
  const pids = { kapi: env.kapi.pid! };
  // Sequential lists: the time of one list, without queueing behind another.
  const cached = await measureCpu(pids, ROUNDS, () => runLoad(ROUNDS, 1, listOnce('?resourceVersion=0')));
  const etcd = await measureCpu(pids, ROUNDS, () => runLoad(ROUNDS, 1, listOnce('')));
  const raw = await runLoad(ROUNDS, 1, async () => {
    const { kvs } = await kv.range(prefix, prefixEnd(prefix));
    if (kvs.length < OBJECTS) throw new Error(`raw range returned ${kvs.length} values`);
  });
  await kv.close();
  const ratio = etcd.result.p50Ms / cached.result.p50Ms;
  const rawRatio = raw.p50Ms / cached.result.p50Ms;
  const ms = (us: number): string => fmt(us / 1000, 1).padStart(6);
  console.log(`\nlist of ${OBJECTS} configmaps (${ROUNDS} rounds each, one at a time)`);
  console.log(
    `  from the watch cache (rv=0)   p50 ${fmt(cached.result.p50Ms, 1).padStart(7)} ms   p99 ${fmt(cached.result.p99Ms, 1).padStart(7)} ms   kapi CPU ${ms(cached.cpuUsPerOp.kapi)} ms`,
  );
  console.log(
    `  from etcd (consistent read)   p50 ${fmt(etcd.result.p50Ms, 1).padStart(7)} ms   p99 ${fmt(etcd.result.p99Ms, 1).padStart(7)} ms   kapi CPU ${ms(etcd.cpuUsPerOp.kapi)} ms`,
  );
  console.log(`  raw etcd range, same keys     p50 ${fmt(raw.p50Ms, 1).padStart(7)} ms   p99 ${fmt(raw.p99Ms, 1).padStart(7)} ms`);
  console.log(`  cached list speed-up over kapi's etcd list: ${fmt(ratio, 2)}x  (target >= 8)${ratio >= 8 ? '' : '  BELOW TARGET'}`);
  console.log(`  cached list speed-up over a raw etcd range: ${fmt(rawRatio, 2)}x  (target >= 1.5)${rawRatio >= 1.5 ? '' : '  BELOW TARGET'}`);
  return { listSpeedup: ratio, listOverRawRange: rawRatio };
}
