import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, percentile, type BenchEnv } from './harness';

/**
 * startKapi() readiness, each with one CRD Established, in a fresh process as a new jest worker
 * or test file sees it: cold (no testing host yet: it starts, with etcd, while the server's modules
 * load), with the host running and a spare server of the kind asked for (the usual case: the
 * test file before asked for the same), and with the host running but no spare (other feature
 * gates: a server starts in the host), and four at once after four at once (parallel jest
 * workers' next test files). Also back-to-back starts in one process, which often find the spare
 * still starting. Targets: 2 s cold, 300 ms with etcd running.
 */

const CRDS = path.resolve(__dirname, '../../../test/fixtures/crds');
const CHILD = path.join(__dirname, 'start-kapi-child.js');
const ROUNDS = Number(process.env.BENCH_STARTKAPI_ROUNDS ?? 3);
/** Time for the host to have its spare ready again, as a test file's own tests would give it. */
const BETWEEN_FILES_MS = 1500;

interface ChildReport {
  firstMs: number;
  warm: number[];
}

interface ChildOptions {
  warm?: number;
  hold?: boolean;
  gates?: string;
}

/** Runs the child; resolves on its report with a function that lets it finish. */
function child(dir: string, opts: ChildOptions): Promise<{ report: ChildReport; finish(): Promise<void> }> {
  const proc = spawn(process.execPath, [CHILD, CRDS], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: {
      ...process.env,
      KAPI_TESTING_DIR: dir,
      KAPI_TESTING_ETCD_LINGER_MS: '0',
      WARM: String(opts.warm ?? 0),
      HOLD: opts.hold ? '1' : '',
      GATES: opts.gates ?? '',
    },
  });
  const exited = new Promise<void>((resolve, reject) =>
    proc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`startKapi bench child exited ${code}`)))),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve({ report: JSON.parse(out) as ChildReport, finish: () => (proc.stdin.end(), exited) });
    });
    exited.catch(reject);
  });
}

const median = (xs: number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function benchStartKapi(_env: BenchEnv): Promise<Record<string, number>> {
  const cold: number[] = [];
  const spare: number[] = [];
  const noSpare: number[] = [];
  const sameProcess: number[] = [];
  const parallel: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const dir = mkdtempSync(path.join(tmpdir(), 'kapi-bench-startkapi-'));
    try {
      const holder = await child(dir, { warm: 5, hold: true });
      cold.push(holder.report.firstMs);
      sameProcess.push(...holder.report.warm);
      await sleep(BETWEEN_FILES_MS);
      const withSpare = await child(dir, {});
      spare.push(withSpare.report.firstMs);
      await withSpare.finish();
      const otherGates = await child(dir, { gates: 'CBORServingAndStorage=true' });
      noSpare.push(otherGates.report.firstMs);
      await otherGates.finish();
      // Four workers' test files at once, twice: the second four find the spares the first left.
      for (const wave of [1, 2]) {
        const workers = await Promise.all([1, 2, 3, 4].map(() => child(dir, {})));
        if (wave === 2) parallel.push(...workers.map((w) => w.report.firstMs));
        await Promise.all(workers.map((w) => w.finish()));
        await sleep(BETWEEN_FILES_MS);
      }
      await holder.finish();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const result = {
    coldMs: median(cold),
    freshProcessSpareMs: median(spare),
    freshProcessNoSpareMs: median(noSpare),
    fourProcessesAtOnceMs: median(parallel),
    sameProcessBackToBackMs: median(sameProcess),
  };
  const list = (xs: number[]): string => `[${xs.map((x) => fmt(x, 0)).join(', ')}]`;
  const row = (label: string, ms: number, target: string, detail: string): void =>
    console.log(`  ${label.padEnd(48)} ${fmt(ms, 0).padStart(6)} ms   ${target.padEnd(12)}  ${detail}`);
  const p90 = (xs: number[]): string =>
    `(p90 ${fmt(
      percentile(
        [...xs].sort((a, b) => a - b),
        90,
      ),
      0,
    )})`;
  console.log('startKapi (one CRD), median ms');
  row('cold (new process, no host or etcd yet)', result.coldMs, 'target 2000', list(cold));
  row('new process, host and etcd running, spare ready', result.freshProcessSpareMs, 'target 300', list(spare));
  row('new process, host and etcd running, no spare', result.freshProcessNoSpareMs, 'target 300', list(noSpare));
  row('four new processes at once, after four', result.fourProcessesAtOnceMs, 'target 300', p90(parallel));
  row('back to back in one process', result.sameProcessBackToBackMs, '', p90(sameProcess));
  return result;
}
