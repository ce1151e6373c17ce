import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { scratchDir } from './scratch-dir';
import path from 'node:path';

/**
 * One etcd per machine (per user) shared by every startKapi() in every process, jest workers
 * included: a detached keeper process owns it and stops it, removing its data, once no process has
 * held a reference for a short linger. References are files named after the holder's pid, so a
 * worker that is killed outright releases its share too.
 */

export interface SharedState {
  endpoint: string;
  keeperPid: number;
}

export interface SharedEtcd {
  endpoint: string;
  release(): void;
}

/** Where the keeper keeps its state; KAPI_TESTING_DIR overrides it (the bench and tests isolate runs). */
export function sharedDir(): string {
  return process.env.KAPI_TESTING_DIR ?? path.join(scratchDir(), `kapi-testing-${userInfo().uid}`);
}

export const stateFile = (dir: string): string => path.join(dir, 'state.json');
export const refsDir = (dir: string): string => path.join(dir, 'refs');

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readState(dir: string): SharedState | null {
  try {
    return JSON.parse(readFileSync(stateFile(dir), 'utf8')) as SharedState;
  } catch {
    return null;
  }
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
      else await sleep(10);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function healthy(endpoint: string): Promise<boolean> {
  try {
    return (await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

/** Starts the keeper and waits for its one line: `ready <endpoint>` or `error <message>`. */
function startKeeper(dir: string): Promise<string> {
  const child = spawn(process.execPath, [path.join(__dirname, 'etcd-keeper.js'), dir], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: process.env,
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const done = (err: Error | null, endpoint = ''): void => {
      child.stdout?.removeAllListeners();
      child.removeAllListeners('exit');
      child.stdout?.destroy();
      child.unref();
      if (err) reject(err);
      else resolve(endpoint);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (!out.includes('\n')) return;
      if (line.startsWith('ready ')) done(null, line.slice('ready '.length));
      else done(new Error(`startKapi: the shared etcd did not start: ${line.replace(/^error /, '')}`));
    });
    child.once('exit', (code) => done(new Error(`startKapi: the shared etcd keeper exited (${code}) before etcd was ready; see ${path.join(dir, 'keeper.log')}`)));
  });
}

/** A reference to the shared etcd, starting it (and its keeper) if none is running. */
export async function acquireSharedEtcd(): Promise<SharedEtcd> {
  const dir = sharedDir();
  mkdirSync(refsDir(dir), { recursive: true });
  const ref = path.join(refsDir(dir), `${process.pid}-${randomBytes(4).toString('hex')}`);
  const release = (): void => {
    try {
      unlinkSync(ref);
    } catch {
      // released already
    }
  };
  try {
    const endpoint = await withLock(dir, async () => {
      writeFileSync(ref, '');
      const state = readState(dir);
      if (state && isAlive(state.keeperPid) && (await healthy(state.endpoint))) return state.endpoint;
      return startKeeper(dir);
    });
    return { endpoint, release };
  } catch (err) {
    release();
    throw err;
  }
}
