import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { get as httpsGet } from 'node:https';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/server/embedded-etcd';
import { testEtcdEndpoint, uniquePrefix } from './shared-etcd';
import { WITHOUT_WORKLOAD_CONTROLLERS } from './workload-controllers';

const ROOT = path.resolve(__dirname, '../..');

/** The built server (dist/main.js) as a real process, as users run it. */
export interface ServerProcess {
  /** The insecure port's URL (every request an admin), or the secure one when the insecure port is off. */
  url: string;
  /** https://127.0.0.1:port */
  secureUrl: string;
  /** --data-dir: the generated certificates (pki/) and admin.kubeconfig. */
  dataDir: string;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ProcessOptions {
  /** Reuse a port and a prefix to restart "the same" server. */
  port?: number;
  prefix?: string;
  /** Without the insecure port, only the TLS port with authentication serves. */
  insecure?: boolean;
  /** Reuse a data directory (its certificates and keys); otherwise a fresh one, removed on stop. */
  dataDir?: string;
  /** An etcd of the test's own (one it compacts, say) instead of the suite's shared one. */
  etcdServers?: string;
  /** The client certificate readiness is checked with, for a server with a --client-ca-file of its own (no admin.kubeconfig). */
  readyAs?: { cert: string; key: string };
}

/** The admin client certificate of a data directory's admin.kubeconfig, once written. */
function adminCredentials(dataDir: string): { cert: string; key: string } | null {
  const file = path.join(dataDir, 'admin.kubeconfig');
  if (!existsSync(file)) return null;
  const cert = /client-certificate-data: (\S+)/.exec(readFileSync(file, 'utf8'))?.[1];
  const key = /client-key-data: (\S+)/.exec(readFileSync(file, 'utf8'))?.[1];
  return cert && key ? { cert: Buffer.from(cert, 'base64').toString(), key: Buffer.from(key, 'base64').toString() } : null;
}

/** A GET of /readyz over TLS as the admin (anonymous requests may be off), trusting any server certificate: readiness only. */
function readyOverTls(url: string, dataDir: string, readyAs?: { cert: string; key: string }): Promise<boolean> {
  const credentials = readyAs ?? adminCredentials(dataDir);
  if (!credentials) return Promise.resolve(false);
  return new Promise((resolve) => {
    const req = httpsGet(`${url}/readyz`, { rejectUnauthorized: false, ...credentials }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    // A server that accepts but never answers (stuck, or starved on a loaded machine) is asked again
    // rather than waited on forever: the start's deadline must stay reachable.
    req.setTimeout(5_000, () => req.destroy());
  });
}

/** The flag WITHOUT_WORKLOAD_CONTROLLERS (harness/workload-controllers.ts) sets, for tests of hand-built workload chains (owners, their pods). */
export const WITHOUT_WORKLOAD_CONTROLLERS_FLAG = `--controllers=${WITHOUT_WORKLOAD_CONTROLLERS.controllers!.join(',')}`;

export async function startServerProcess(extraArgs: string[] = [], opts: ProcessOptions = {}): Promise<ServerProcess & { port: number; prefix: string }> {
  const port = opts.port ?? (await freePort());
  const prefix = opts.prefix ?? uniquePrefix('e2e');
  const insecure = opts.insecure ?? true;
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'kapi-e2e-'));
  const args = [
    path.join(ROOT, 'dist/main.js'),
    `--etcd-servers=${opts.etcdServers ?? testEtcdEndpoint()}`,
    `--etcd-prefix=${prefix}`,
    `--data-dir=${dataDir}`,
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    ...(insecure ? [`--insecure-port=${port}`] : []),
    // Webhooks and services of tests listen on 127.0.0.1, reached through Endpoints.
    '--allow-loopback-endpoints',
    ...extraArgs,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 45_000;
  let secureUrl = '';
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`kapi exited early (${child.exitCode}): ${output}`);
      secureUrl ||= /serving securely on (https:\/\/[^\s"]+)/.exec(output)?.[1] ?? '';
      if (secureUrl && (await readyOverTls(secureUrl, dataDir, opts.readyAs))) break;
      if (Date.now() > deadline) throw new Error(`kapi did not become ready: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    // A server that never became ready is not left running behind the failed test.
    child.kill('SIGKILL');
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const stop = (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      // A server that does not finish its shutdown is killed, so that no test file waits on it for ever.
      const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.once('exit', (code) => {
        clearTimeout(kill);
        resolve(code);
      });
      child.kill(signal);
    });
  return {
    url: insecure ? `http://127.0.0.1:${port}` : secureUrl,
    secureUrl,
    dataDir,
    port,
    prefix,
    child,
    output: () => output,
    stop: async (signal) => {
      const code = await stop(signal);
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/**
 * Servers started side by side, as Promise.all would give them; when one fails to start, those that
 * started are stopped before the failure is thrown, so no test file leaves a server running.
 */
export async function allStarted<T extends readonly Promise<{ stop(): Promise<unknown> }>[]>(starts: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    throw failed.reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/**
 * The server process of one test file: started before its tests, stopped after them. Its url is
 * read inside tests (the process starts in beforeAll).
 */
export function serverProcessForFile(extraArgs: string[] = []): { readonly url: string } {
  let server: ServerProcess | null = null;
  beforeAll(async () => {
    server = await startServerProcess(extraArgs);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get url(): string {
      if (!server) throw new Error('the server process starts in beforeAll');
      return server.url;
    },
  };
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

const KUBECTL_CACHE = mkdtempSync(path.join(tmpdir(), 'kapi-kubectl-cache-'));

/** Runs the real kubectl against a server, with no user kubeconfig or discovery cache in the way. */
export function kubectl(server: string, args: string[], input?: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'kubectl',
      [`--server=${server}`, `--cache-dir=${KUBECTL_CACHE}`, ...args],
      { env: { ...process.env, KUBECONFIG: '/dev/null', HOME: process.env.HOME ?? '/tmp' }, timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) {
      child.stdin?.write(input);
      child.stdin?.end();
    }
  });
}

export interface KubectlWatch {
  /** Everything kubectl has printed so far. */
  output(): string;
  /** Resolves once the output matches; fails after 15 s with what was printed. */
  waitFor(pattern: RegExp): Promise<void>;
  stop(): void;
}

/** A long-running kubectl (`get -w`) whose output a test waits on. */
export function kubectlWatch(server: string, args: string[]): KubectlWatch {
  const child = spawn('kubectl', [`--server=${server}`, `--cache-dir=${KUBECTL_CACHE}`, ...args], { env: { ...process.env, KUBECONFIG: '/dev/null' } });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return {
    output: () => out,
    waitFor: async (pattern) => {
      const deadline = Date.now() + 15_000;
      while (!pattern.test(out)) {
        if (Date.now() > deadline) throw new Error(`watch output never matched ${pattern}: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: () => child.kill(),
  };
}
