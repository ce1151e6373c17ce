import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { isAlive } from '../server/embedded-etcd';
import { buildIdentity, readState, sharedDir, withLock } from './host-state';
import { onLines, send, type HostMessage, type HostRequest, type LogLine } from './host-protocol';

const HELLO_TIMEOUT_MS = 5000;

/**
 * This process's connection to the testing host (testing-host.ts), starting the host if none of
 * this build runs. The socket does not keep the process alive while no request is pending, and
 * its closing (the process ended) is what tells the host to stop this process's instances.
 */
export class HostConnection {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(result: unknown): void; reject(err: Error): void }>();
  private readonly logSinks = new Map<string, (line: LogLine) => void>();
  private closedBecause: string | null = null;

  private constructor(
    private readonly socket: Socket,
    dir: string,
  ) {
    socket.unref();
    onLines<HostMessage>(socket, (message) => {
      if ('log' in message) {
        this.logSinks.get(message.log)?.(message);
        return;
      }
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      this.settled();
      if (message.ok) waiter?.resolve(message.result);
      else waiter?.reject(new Error(message.error));
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closedBecause = `the testing host closed the connection; see ${path.join(dir, 'host.log')}`;
      for (const waiter of this.pending.values()) waiter.reject(new Error(`startKapi: ${this.closedBecause}`));
      this.pending.clear();
    });
  }

  get closed(): boolean {
    return this.closedBecause !== null;
  }

  /** Connects to the host of this build, starting one if none runs; under the lock, so no host retires meanwhile. */
  static open(embeddedEtcd: boolean): Promise<HostConnection> {
    const dir = sharedDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const build = buildIdentity();
    return withLock(dir, async () => {
      const state = readState(dir);
      if (state && state.build === build && isAlive(state.hostPid)) {
        const existing = await HostConnection.connect(state.socket, dir).catch(() => null);
        if (existing) return existing;
      }
      return HostConnection.connect(await startHost(dir, embeddedEtcd), dir);
    });
  }

  private static async connect(socketPath: string, dir: string): Promise<HostConnection> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(socketPath);
      s.once('connect', () => resolve(s)).once('error', reject);
    });
    const connection = new HostConnection(socket, dir);
    // A host that does not answer (stopped, say) is passed over: the caller starts one of its own.
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the testing host did not answer')), HELLO_TIMEOUT_MS)));
    try {
      await Promise.race([connection.request({ op: 'hello' }), silent]);
    } catch (err) {
      socket.destroy();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    return connection;
  }

  request<T>(req: HostRequest): Promise<T> {
    if (this.closedBecause !== null) return Promise.reject(new Error(`startKapi: ${this.closedBecause}`));
    const id = this.nextId++;
    this.socket.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      send(this.socket, { ...req, id });
    });
  }

  /** A tag for a start request whose log lines go to `sink`, until `dropLog`. */
  logTag(sink: (line: LogLine) => void): string {
    const tag = String(this.nextId++);
    this.logSinks.set(tag, sink);
    return tag;
  }

  dropLog(tag: string): void {
    this.logSinks.delete(tag);
  }

  private settled(): void {
    if (this.pending.size === 0) this.socket.unref();
  }
}

/** Starts the host and waits for its one line: `ready <socket>` or `error <message>`; returns the socket's path. */
function startHost(dir: string, embeddedEtcd: boolean): Promise<string> {
  // The host's own output (a crash's stack, say) goes to its log beside what it logs itself.
  const logFd = openSync(path.join(dir, 'host.log'), 'a');
  const child = spawn(process.execPath, [path.join(__dirname, 'testing-host.js'), dir, ...(embeddedEtcd ? ['embedded'] : [])], {
    detached: true,
    stdio: ['ignore', 'pipe', logFd],
    env: process.env,
  });
  closeSync(logFd);
  return new Promise((resolve, reject) => {
    let out = '';
    const done = (err: Error | null, socketPath = ''): void => {
      child.stdout?.removeAllListeners();
      child.removeAllListeners('exit');
      child.stdout?.destroy();
      child.unref();
      if (err) reject(err);
      else resolve(socketPath);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      const line = out.split('\n')[0];
      if (line.startsWith('ready ')) done(null, line.slice('ready '.length));
      else done(new Error(`startKapi: the testing host did not start: ${line.replace(/^error /, '')}`));
    });
    child.once('exit', (code) => done(new Error(`startKapi: the testing host exited (${code}) before it was ready; see ${path.join(dir, 'host.log')}`)));
  });
}
