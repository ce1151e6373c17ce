import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** An etcd child process owned by kapi (or by a test harness), on ports of its own. */

export interface EmbeddedEtcdOptions {
  dataDir: string;
  /** The etcd binary; defaults to KAPI_ETCD_BINARY or `etcd` on PATH. */
  binary?: string;
  /** How often etcd sends progress notifications to idle watches. */
  progressNotifyInterval?: string;
  startTimeoutMs?: number;
  /**
   * Raft ticks of 10 ms (election after 100 ms) instead of etcd's 100 ms (1 s): a lone member has
   * no peer to lose, so this only cuts its first election (a random 1 to 11 ticks after etcd's
   * fast-forward for single-member clusters) from up to 1.1 s to at most 110 ms, for about 1 % of a
   * core while idle. For throwaway etcds that start often (tests, startKapi); not for kapi's own.
   */
  shortTicks?: boolean;
}

interface Ports {
  client: number;
  peer: number;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Ports are chosen once per data directory and kept, so a restarted member finds the peer URL it
 * was created with; free ephemeral ports never clash with a system etcd on 2379/2380.
 */
async function choosePorts(dataDir: string): Promise<Ports> {
  const file = path.join(dataDir, 'kapi-etcd-ports.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Ports;
    if ((await portIsFree(saved.client)) && (await portIsFree(saved.peer))) return saved;
  }
  const ports = { client: await freePort(), peer: await freePort() };
  writeFileSync(file, JSON.stringify(ports));
  return ports;
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An etcd left running by a kapi that was killed outright still holds the data directory's lock:
 * stop it, but only if its command line shows it is the member of this very directory.
 */
async function reclaimOrphan(dataDir: string): Promise<void> {
  const file = path.join(dataDir, 'kapi-etcd.pid');
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8'));
  rmSync(file, { force: true });
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !cmdline.includes(`--data-dir=${path.join(dataDir, 'member-data')}`)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

export function etcdBinary(explicit?: string): string {
  const candidate = explicit ?? process.env.KAPI_ETCD_BINARY ?? 'etcd';
  const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(`etcd binary "${candidate}" not found or not runnable; install Debian's etcd-server (make run does) or set KAPI_ETCD_BINARY`);
  }
  return candidate;
}

export class EmbeddedEtcd {
  private exited = false;
  private readonly stderrTail: string[] = [];

  private constructor(
    private readonly child: ChildProcess,
    readonly endpoint: string,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail.push(...chunk.toString().split('\n').filter(Boolean));
      this.stderrTail.splice(0, Math.max(0, this.stderrTail.length - 20));
    });
    child.stdout?.resume();
    child.on('exit', () => {
      this.exited = true;
    });
  }

  static async start(opts: EmbeddedEtcdOptions): Promise<EmbeddedEtcd> {
    const binary = etcdBinary(opts.binary);
    mkdirSync(opts.dataDir, { recursive: true });
    await reclaimOrphan(opts.dataDir);
    const ports = await choosePorts(opts.dataDir);
    const clientUrl = `http://127.0.0.1:${ports.client}`;
    const peerUrl = `http://127.0.0.1:${ports.peer}`;
    const child = spawn(
      binary,
      [
        '--name=kapi',
        `--data-dir=${path.join(opts.dataDir, 'member-data')}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=kapi=${peerUrl}`,
        '--initial-cluster-state=new',
        ...(opts.shortTicks ? ['--heartbeat-interval=10', '--election-timeout=100'] : []),
        `--experimental-watch-progress-notify-interval=${opts.progressNotifyInterval ?? '5s'}`,
        '--log-level=warn',
        '--logger=zap',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const pidFile = path.join(opts.dataDir, 'kapi-etcd.pid');
    if (child.pid) writeFileSync(pidFile, String(child.pid));
    child.once('exit', () => rmSync(pidFile, { force: true }));
    const etcd = new EmbeddedEtcd(child, clientUrl);
    await etcd.waitUntilServing(opts.startTimeoutMs ?? 30_000);
    return etcd;
  }

  private async waitUntilServing(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`embedded etcd exited during start-up: ${this.stderrTail.slice(-3).join(' | ')}`);
      try {
        const res = await fetch(`${this.endpoint}/health`, { signal: AbortSignal.timeout(1000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    this.child.kill('SIGKILL');
    throw new Error(`embedded etcd did not become healthy within ${timeoutMs} ms`);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get running(): boolean {
    return !this.exited;
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await done;
    clearTimeout(timer);
  }
}
