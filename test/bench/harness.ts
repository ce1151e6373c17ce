import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EmbeddedEtcd, freePort } from '../../src/server/embedded-etcd';

/** What every benchmark needs: a real etcd, kapi as its own process, and a keep-alive HTTP client. */

export interface BenchEnv {
  etcd: EmbeddedEtcd;
  etcdPid: number;
  kapiUrl: string;
  kapi: ChildProcess;
  close(): Promise<void>;
}

export async function startBenchEnv(): Promise<BenchEnv> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kapi-bench-'));
  const etcd = await EmbeddedEtcd.start({ dataDir: dir });
  const extraFlags = (process.env.BENCH_KAPI_ARGS ?? '').split(' ').filter(Boolean);
  const { process: kapi, url: kapiUrl, stop } = await startKapiProcess(etcd, dir, extraFlags);
  return {
    etcd,
    etcdPid: etcd.pid,
    kapi,
    kapiUrl,
    close: async () => {
      await stop();
      await etcd.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** BENCH_PROFILE=DIR: a CPU profile of each measured server there; BENCH_NODE_ARGS: more node flags. */
export function nodeArgs(): string[] {
  return [
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
}

/**
 * kapi as its own process over `etcd`, serving plain HTTP on a free loopback port; resolves once
 * /readyz answers. BENCH_PROFILE=DIR writes a CPU profile of it there; BENCH_NODE_ARGS adds node flags.
 */
export async function startKapiProcess(
  etcd: EmbeddedEtcd,
  dataDir: string,
  flags: string[],
  extraNodeArgs: string[] = [],
): Promise<{ process: ChildProcess; url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const main = path.resolve(__dirname, '../../../dist/main.js');
  const profile = [...nodeArgs(), ...extraNodeArgs];
  const kapi = spawn(
    process.execPath,
    [
      ...profile,
      main,
      `--etcd-servers=${etcd.endpoint}`,
      `--data-dir=${dataDir}`,
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      `--insecure-port=${port}`,
      ...flags,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // starting
    }
    // A minute: a start over the memory bench's 50,000 pods on a loaded machine takes a while.
    if (i > 600) throw new Error('kapi did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: kapi,
    url,
    stop: async () => {
      kapi.kill('SIGTERM');
      await new Promise((r) => kapi.once('exit', r));
    },
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export interface HttpResult {
  status: number;
  body: Buffer;
}

export function request(url: string, method: string, body?: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface LoadResult {
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  count: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `total` operations with `concurrency` in flight; operation i must throw on failure. */
export async function runLoad(total: number, concurrency: number, op: (i: number) => Promise<void>): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < total; i = next++) {
      const t = process.hrtime.bigint();
      await op(i);
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return { opsPerSecond: total / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), count: total };
}

/** A process's parent and the clock ticks (user + system) it has used so far, from /proc. */
export function processStat(pid: number): { ppid: number; ticks: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  return processStat(pid).ticks / 100;
}

/** CPU spent per operation by each process during a load, in microseconds. */
export async function measureCpu<T>(
  pids: Record<string, number>,
  ops: number,
  fn: () => Promise<T>,
): Promise<{ result: T; cpuUsPerOp: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const result = await fn();
  const cpuUsPerOp = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, ((cpuSeconds(pid) - before[k]) * 1e6) / ops]));
  return { result, cpuUsPerOp };
}

export function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}
