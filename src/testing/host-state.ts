import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { isAlive } from '../server/embedded-etcd';
import { scratchDir } from './scratch-dir';

/**
 * The files by which every process on the machine finds the testing host (testing-host.ts) of its
 * build: a state file per build naming the host's socket and pid, and a lock directory under which
 * a host is started or retired, so that two processes never start two hosts of one build and a
 * host never retires while a client is connecting.
 */

export interface HostState {
  socket: string;
  hostPid: number;
  /** The build of `kapi/testing` the host runs; a client of another build starts a host of its own. */
  build: string;
}

/** Where the host keeps its state; KAPI_TESTING_DIR overrides it (the bench and tests isolate runs). */
export function sharedDir(): string {
  return process.env.KAPI_TESTING_DIR ?? path.join(scratchDir(), `kapi-testing-${userInfo().uid}`);
}

let build: string | null = null;

/** This copy of kapi: where it is installed and when it was built (tsc rewrites every output). */
export function buildIdentity(): string {
  const host = path.join(__dirname, 'testing-host.js');
  return (build ??= `${host}@${statSync(host).mtimeMs}`);
}

/** Each build has its own host, so two copies of kapi testing at once each keep theirs. */
const stateFile = (dir: string): string => path.join(dir, `state-${createHash('sha256').update(buildIdentity()).digest('hex').slice(0, 12)}.json`);

export function readState(dir: string): HostState | null {
  try {
    return JSON.parse(readFileSync(stateFile(dir), 'utf8')) as HostState;
  } catch {
    return null;
  }
}

export function writeState(dir: string, state: HostState): void {
  const tmp = `${stateFile(dir)}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, stateFile(dir));
}

/** Removes the state file if it still names this process (a newer host may have replaced it). */
export function clearOwnState(dir: string): void {
  if (readState(dir)?.hostPid === process.pid) rmSync(stateFile(dir), { force: true });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** An exclusive section among processes: mkdir is atomic; a holder that died leaves a lock others break. */
export async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(dir, 'lock');
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'owner'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner = 0;
      try {
        owner = Number(readFileSync(path.join(lock, 'owner'), 'utf8'));
      } catch {
        // the holder is between mkdir and writing its pid
      }
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue;
      }
      if ((owner > 0 && !isAlive(owner)) || age > 30_000) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`startKapi: timed out waiting for the lock ${lock}`);
      else await sleep(5);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
