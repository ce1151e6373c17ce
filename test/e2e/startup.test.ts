import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/server/embedded-etcd';
import { startServerProcess } from '../harness/process';

const MAIN = path.resolve(__dirname, '../../dist/main.js');

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { timeout: 40_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr });
    });
  });
}

test('an unreachable etcd is a one-line error and a non-zero exit', async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kapi-unreachable-'));
  const res = await run([
    `--etcd-servers=http://127.0.0.1:${port}`,
    `--data-dir=${dataDir}`,
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    '--storage-initialization-timeout=2s',
  ]);
  rmSync(dataDir, { recursive: true, force: true });
  expect(res.code).toBe(1);
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  expect(res.stderr).toMatch(/^kapi: cannot reach etcd at http:\/\/127\.0\.0\.1:\d+/);
});

test('an unknown flag or feature gate is refused with usage', async () => {
  const flag = await run(['--no-such-flag=1']);
  expect(flag.code).toBe(2);
  expect(flag.stderr).toContain('kapi: unknown flag: --no-such-flag');
  const gate = await run(['--feature-gates=Bogus=true']);
  expect(gate.code).toBe(2);
  expect(gate.stderr).toContain('unrecognized feature gate: Bogus');
  const future = await run(['--emulated-version=1.34', '--feature-gates=GenericWorkload=true']);
  expect(future.code).toBe(2);
  expect(future.stderr).toContain(
    'cannot set feature gate GenericWorkload to true, feature is PreAlpha at emulated version 1.34, min compatibility version 1.33',
  );
  const compat = await run(['--emulated-version=1.34', '--min-compatibility-version=1.35']);
  expect(compat.code).toBe(2);
  expect(compat.stderr).toContain('minCompatibilityVersion version 1.35 is not between [1.33, 1.34]');
  const locked = await run(['--feature-gates=VolumeAttributesClass=false']);
  expect(locked.code).toBe(2);
  expect(locked.stderr).toContain('cannot set feature gate VolumeAttributesClass to false, feature is locked to true');
  const plugin = await run(['--enable-admission-plugins=NodeRestriction,EventRateLimit']);
  expect(plugin.code).toBe(2);
  expect(plugin.stderr).toContain('enable-admission-plugins plugin "EventRateLimit" is not implemented by kapi');
});

test('loading the server loads no CEL: @bufbuild/cel waits for the first expression compiled', async () => {
  const startServer = path.resolve(__dirname, '../../dist/server/start-server.js');
  const script = `require(${JSON.stringify(startServer)}); process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((f) => f.includes('/@bufbuild/'))))`;
  const loaded = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['-e', script], (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  expect(JSON.parse(loaded)).toEqual([]);
});

test("a server emulating 1.33, kube 1.36's floor, serves 1.33's kinds; SIGTERM shuts it down cleanly", async () => {
  const kapi = await startServerProcess(['--emulated-version=1.33']);
  const get = async (p: string) => {
    const res = await fetch(`${kapi.url}${p}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  expect((await get('/version')).body).toMatchObject({ minor: '36', emulationMinor: '33', minCompatibilityMinor: '33' });
  // storage.k8s.io/v1 VolumeAttributesClasses are GA since 1.34.
  const storage = (await get('/apis/storage.k8s.io/v1')).body as { resources: { name: string }[] };
  expect(storage.resources.map((r) => r.name)).toContain('storageclasses');
  expect(storage.resources.map((r) => r.name)).not.toContain('volumeattributesclasses');
  expect(await kapi.stop('SIGTERM')).toBe(0);
});

interface EmbeddedKapi {
  child: ReturnType<typeof spawn>;
  url: string;
  etcdUrl: string;
  output(): string;
}

async function startEmbedded(dataDir: string): Promise<EmbeddedKapi> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, `--data-dir=${dataDir}`, '--bind-address=127.0.0.1', '--secure-port=0', `--insecure-port=${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // starting
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`not ready: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const etcdUrl = /embedded etcd serving at (\S+)/.exec(output)?.[1] ?? '';
  return { child, url, etcdUrl, output: () => output };
}

test('without --etcd-servers kapi runs its own etcd under --data-dir and stops it on SIGINT', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kapi-embedded-'));
  const kapi = await startEmbedded(dataDir);
  try {
    expect(kapi.etcdUrl).not.toBe('');
    expect((await fetch(`${kapi.etcdUrl}/health`)).ok).toBe(true);
    const exited = new Promise<number | null>((resolve) => kapi.child.once('exit', resolve));
    kapi.child.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`${kapi.etcdUrl}/health`)).rejects.toThrow();
  } finally {
    kapi.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('after kapi is killed outright, the next start stops the etcd it left behind and keeps the data', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kapi-embedded-'));
  const first = await startEmbedded(dataDir);
  let second: EmbeddedKapi | undefined;
  try {
    const created = await fetch(`${first.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'survivor' } }),
    });
    expect(created.status).toBe(201);
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    // The orphan still serves, holding the data directory.
    expect((await fetch(`${first.etcdUrl}/health`)).ok).toBe(true);
    second = await startEmbedded(dataDir);
    expect((await fetch(`${second.url}/api/v1/namespaces/default/configmaps/survivor`)).status).toBe(200);
  } finally {
    second?.child.kill('SIGINT');
    if (second) await new Promise((resolve) => (second!.child.exitCode !== null ? resolve(null) : second!.child.once('exit', resolve)));
    first.child.kill('SIGKILL');
    // Should the test fail, no etcd of this data directory may outlive it.
    spawnSync('pkill', ['-f', dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
