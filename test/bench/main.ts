import { availableParallelism } from 'node:os';
import { benchControlPlane } from './control-plane';
import { benchEncode } from './encode';
import { startBenchEnv, type BenchEnv } from './harness';
import { benchLists } from './lists';
import { benchMemory } from './memory';
import { benchSerialization } from './serialization';
import { benchStartKapi } from './start-kapi';
import { benchWatchLatency } from './watch-latency';
import { benchWrites } from './writes';

const benches: Record<string, (env: BenchEnv) => Promise<unknown>> = {
  writes: benchWrites,
  lists: benchLists,
  serialization: benchSerialization,
  encode: benchEncode,
  watch: benchWatchLatency,
  startkapi: benchStartKapi,
  controlplane: benchControlPlane,
  memory: benchMemory,
};

/**
 * `npm run bench`: every benchmark in one run against one etcd and one kapi process; prints ratios.
 * BENCH_ONLY=writes,lists runs a subset.
 */
async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',').filter(Boolean) ?? Object.keys(benches);
  const unknown = only.filter((name) => !(name in benches));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown bench ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`);
  // kapi and the floors run on this Node: the ratios depend on it (docs/performance.md, session 20).
  console.log(`npm run bench: Node ${process.version} (kapi, its floors and the clients), ${availableParallelism()} cores`);
  const env = await startBenchEnv();
  try {
    for (const name of only) await benches[name](env);
  } finally {
    await env.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
