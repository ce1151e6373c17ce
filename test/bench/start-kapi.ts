import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, percentile, type BenchEnv } from './harness';

/**
 * startKapi() readiness, each with one CRD Established: cold (a fresh process, no shared etcd yet:
 * etcd starts while kapi's modules load), a fresh process while the shared etcd runs (what a new
 * jest worker sees), and more instances in a process that has one (what the next test file sees).
 * Targets: 2 s cold, 300 ms with etcd running.
 */

const CRDS = path.resolve(__dirname, '../../../test/fixtures/crds');
const CHILD = path.join(__dirname, 'start-kapi-child.js');
const ROUNDS = Number(process.env.BENCH_STARTKAPI_ROUNDS ?? 3);

interface ChildReport {
  firstMs: number;
  warm: number[];
}

/** Runs the child; with `hold`, resolves on its report and returns a function that lets it finish. */
function child(dir: string, warm: number, hold: boolean): Promise<{ report: ChildReport; finish(): Promise<void> }> {
  const proc = spawn(process.execPath, [CHILD, CRDS], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, KAPI_TESTING_DIR: dir, KAPI_TESTING_ETCD_LINGER_MS: '0', WARM: String(warm), HOLD: hold ? '1' : '' },
  });
  const exited = new Promise<void>((resolve, reject) => proc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`startKapi bench child exited ${code}`)))));
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve({ report: JSON.parse(out) as ChildReport, finish: () => (proc.stdin.end(), exited) });
    });
    exited.catch(reject);
  });
}

const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 50);

export async function benchStartKapi(_env: BenchEnv): Promise<Record<string, number>> {
  const cold: number[] = [];
  const freshProcess: number[] = [];
  const sameProcess: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const dir = mkdtempSync(path.join(tmpdir(), 'kapi-bench-startkapi-'));
    try {
      const holder = await child(dir, 5, true);
      cold.push(holder.report.firstMs);
      sameProcess.push(...holder.report.warm);
      const second = await child(dir, 0, false);
      freshProcess.push(second.report.firstMs);
      await second.finish();
      await holder.finish();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const result = { coldMs: median(cold), freshProcessWarmEtcdMs: median(freshProcess), sameProcessMs: median(sameProcess) };
  console.log('startKapi (one CRD), median ms');
  console.log(`  cold (new process, etcd not running)  ${fmt(result.coldMs, 0).padStart(6)} ms   target 2000   [${cold.map((x) => fmt(x, 0)).join(', ')}]`);
  console.log(`  new process, etcd running             ${fmt(result.freshProcessWarmEtcdMs, 0).padStart(6)} ms   [${freshProcess.map((x) => fmt(x, 0)).join(', ')}]`);
  console.log(`  same process, etcd running            ${fmt(result.sameProcessMs, 0).padStart(6)} ms   target 300    (p90 ${fmt(percentile([...sameProcess].sort((a, b) => a - b), 90), 0)})`);
  return result;
}
