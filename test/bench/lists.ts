import { fmt, request, runLoad, type BenchEnv } from './harness';

/** A list of 10,000 objects from the watch cache (resourceVersion=0) beside the same list read from etcd. */

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
  // Sequential lists: the time of one list, without queueing behind another.
  const cached = await runLoad(ROUNDS, 1, listOnce('?resourceVersion=0'));
  const etcd = await runLoad(ROUNDS, 1, listOnce(''));
  const ratio = etcd.p50Ms / cached.p50Ms;
  console.log(`\nlist of ${OBJECTS} configmaps (${ROUNDS} rounds each, one at a time)`);
  console.log(`  from the watch cache (rv=0)   p50 ${fmt(cached.p50Ms, 1).padStart(7)} ms   p99 ${fmt(cached.p99Ms, 1).padStart(7)} ms`);
  console.log(`  from etcd (consistent read)   p50 ${fmt(etcd.p50Ms, 1).padStart(7)} ms   p99 ${fmt(etcd.p99Ms, 1).padStart(7)} ms`);
  console.log(`  cached list speed-up: ${fmt(ratio, 2)}x  (target >= 5)${ratio >= 5 ? '' : '  BELOW TARGET'}`);
  return { listSpeedup: ratio };
}
