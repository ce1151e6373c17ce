import { startBenchEnv } from './harness';
import { benchLists } from './lists';
import { benchSerialization } from './serialization';
import { benchWatchLatency } from './watch-latency';
import { benchWrites } from './writes';

/** `npm run bench`: every benchmark in one run against one etcd and one kapi process; prints ratios. */
async function main(): Promise<void> {
  const env = await startBenchEnv();
  try {
    await benchWrites(env);
    await benchLists(env);
    await benchSerialization(env);
    await benchWatchLatency(env);
  } finally {
    await env.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
