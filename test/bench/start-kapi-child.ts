/**
 * One process of the startKapi bench: the time from loading `kapi/testing` to a ready instance
 * (one CRD Established, with the feature gates in GATES), then `WARM` more instances started and
 * stopped in this process. Prints JSON; with HOLD set it keeps its first instance until stdin
 * closes (the testing host stays up meanwhile).
 */
const started = performance.now();
const { startKapi } = require('../../src/testing') as typeof import('../../src/testing');

const crds = process.argv[2];
const featureGates = process.env.GATES ?? '';
const warmCount = Number(process.env.WARM ?? 0);

async function main(): Promise<void> {
  const first = await startKapi({ crds, featureGates });
  const firstMs = performance.now() - started;
  const warm: number[] = [];
  for (let i = 0; i < warmCount; i++) {
    const t = performance.now();
    const kapi = await startKapi({ crds, featureGates });
    warm.push(performance.now() - t);
    await kapi.stop();
  }
  process.stdout.write(`${JSON.stringify({ firstMs, warm })}\n`);
  if (process.env.HOLD) await new Promise((resolve) => process.stdin.once('close', resolve).resume());
  await first.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
