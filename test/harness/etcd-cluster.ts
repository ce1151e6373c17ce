import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { scratchDir } from '../../src/testing/scratch-dir';
import path from 'node:path';
import { etcdBinary, freePort } from '../../src/server/embedded-etcd';

/**
 * A real N-member etcd cluster of child processes on 127.0.0.1, for fault tests: each member can be
 * killed (SIGKILL), paused (SIGSTOP), resumed (SIGCONT) and restarted on its own data directory.
 * Members are addressed by index (0..size-1). Keep this API stable: other branches copy the file.
 */

export interface EtcdClusterOptions {
  /** Number of members; 3 unless told. */
  size?: number;
  /** Extra flags for every member (e.g. `--heartbeat-interval=50`). */
  extraArgs?: string[];
  /** How long start() and restart() wait for health; 30 s unless told. */
  startTimeoutMs?: number;
}

export interface EtcdMemberInfo {
  index: number;
  name: string;
  clientUrl: string;
  peerUrl: string;
  /** The current process id, 0 when the member is not running. */
  pid: number;
  running: boolean;
  paused: boolean;
}

export interface EtcdCluster {
  /** Client URLs of all members, in index order (for --etcd-servers). */
  readonly endpoints: string[];
  readonly size: number;
  member(index: number): EtcdMemberInfo;
  /** SIGKILL the member and wait until it has exited. */
  kill(index: number): Promise<void>;
  /** SIGSTOP the member: its sockets stay open but it answers nothing. */
  pause(index: number): void;
  /** SIGCONT a paused member. */
  resume(index: number): void;
  /** Start a killed member again on its data directory and wait until it serves. */
  restart(index: number): Promise<void>;
  /** Index of the member the running members agree is leader, or null when there is none. */
  leader(): Promise<number | null>;
  /** Waits (up to timeoutMs, 20 s unless told) for a leader among the running members. */
  waitForLeader(timeoutMs?: number): Promise<number>;
  /** Kills every member and removes the data directories. */
  stop(): Promise<void>;
}

interface Member {
  index: number;
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  child: ChildProcess | null;
  paused: boolean;
  stderrTail: string[];
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A test runner that dies must not leave etcd members behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function memberStatus(clientUrl: string): Promise<{ memberId: string; leader: string } | null> {
  try {
    const res = await fetch(`${clientUrl}/v3/maintenance/status`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(1000),
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { header?: { member_id?: string }; leader?: string };
    if (!body.header?.member_id || !body.leader || body.leader === '0') return null;
    return { memberId: body.header.member_id, leader: body.leader };
  } catch {
    return null;
  }
}

async function healthy(clientUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

export async function startEtcdCluster(opts: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  const size = opts.size ?? 3;
  const startTimeoutMs = opts.startTimeoutMs ?? 30_000;
  const binary = etcdBinary();
  const root = mkdtempSync(path.join(scratchDir(), 'kapi-etcd-cluster-'));
  installExitHook();

  const members: Member[] = [];
  for (let index = 0; index < size; index++) {
    members.push({
      index,
      name: `m${index}`,
      clientUrl: `http://127.0.0.1:${await freePort()}`,
      peerUrl: `http://127.0.0.1:${await freePort()}`,
      dataDir: path.join(root, `m${index}`),
      child: null,
      paused: false,
      stderrTail: [],
    });
  }
  const initialCluster = members.map((m) => `${m.name}=${m.peerUrl}`).join(',');

  function spawnMember(m: Member): void {
    const child = spawn(
      binary,
      [
        `--name=${m.name}`,
        `--data-dir=${m.dataDir}`,
        `--listen-client-urls=${m.clientUrl}`,
        `--advertise-client-urls=${m.clientUrl}`,
        `--listen-peer-urls=${m.peerUrl}`,
        `--initial-advertise-peer-urls=${m.peerUrl}`,
        `--initial-cluster=${initialCluster}`,
        '--initial-cluster-state=new',
        `--initial-cluster-token=${path.basename(root)}`,
        '--experimental-watch-progress-notify-interval=5s',
        '--log-level=warn',
        '--logger=zap',
        ...(opts.extraArgs ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    m.stderrTail = [];
    child.stderr?.on('data', (chunk: Buffer) => {
      m.stderrTail.push(...chunk.toString().split('\n').filter(Boolean));
      m.stderrTail.splice(0, Math.max(0, m.stderrTail.length - 20));
    });
    live.add(child);
    child.once('exit', () => {
      live.delete(child);
      if (m.child === child) {
        m.child = null;
        m.paused = false;
      }
    });
    m.child = child;
    m.paused = false;
  }

  async function waitServing(targets: Member[]): Promise<void> {
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      const dead = targets.find((m) => !m.child);
      if (dead) throw new Error(`etcd member ${dead.name} exited: ${dead.stderrTail.slice(-3).join(' | ')}`);
      const ok = await Promise.all(targets.map((m) => healthy(m.clientUrl)));
      if (ok.every(Boolean)) return;
      if (Date.now() > deadline) throw new Error(`etcd members ${targets.map((m) => m.name).join(',')} not healthy within ${startTimeoutMs} ms`);
      await sleep(100);
    }
  }

  function at(index: number): Member {
    const m = members[index];
    if (!m) throw new Error(`no etcd member ${index} in a cluster of ${size}`);
    return m;
  }

  async function killMember(m: Member): Promise<void> {
    const child = m.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  async function leader(): Promise<number | null> {
    const running = members.filter((m) => m.child && !m.paused);
    const statuses = await Promise.all(running.map(async (m) => ({ m, s: await memberStatus(m.clientUrl) })));
    for (const { m, s } of statuses) {
      if (s && s.memberId === s.leader) return m.index;
    }
    return null;
  }

  for (const m of members) spawnMember(m);
  try {
    await waitServing(members);
  } catch (err) {
    await Promise.all(members.map(killMember));
    rmSync(root, { recursive: true, force: true });
    throw err;
  }

  return {
    endpoints: members.map((m) => m.clientUrl),
    size,
    member(index) {
      const m = at(index);
      return {
        index: m.index,
        name: m.name,
        clientUrl: m.clientUrl,
        peerUrl: m.peerUrl,
        pid: m.child?.pid ?? 0,
        running: m.child !== null,
        paused: m.paused,
      };
    },
    kill: (index) => killMember(at(index)),
    pause(index) {
      const m = at(index);
      if (!m.child || m.paused) return;
      m.child.kill('SIGSTOP');
      m.paused = true;
    },
    resume(index) {
      const m = at(index);
      if (!m.child || !m.paused) return;
      m.child.kill('SIGCONT');
      m.paused = false;
    },
    async restart(index) {
      const m = at(index);
      if (m.child) await killMember(m);
      spawnMember(m);
      await waitServing([m]);
    },
    leader,
    async waitForLeader(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = await leader();
        if (found !== null) return found;
        if (Date.now() > deadline) throw new Error(`no etcd leader within ${timeoutMs} ms`);
        await sleep(100);
      }
    },
    async stop() {
      await Promise.all(members.map(killMember));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
