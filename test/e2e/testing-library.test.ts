import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';

/** The shared etcd of this test only (its own state directory), stopped 2 s after nobody holds it. */
const dir = mkdtempSync(path.join(tmpdir(), 'kapi-testing-lib-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runFlow(): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(__dirname, 'testing-library-flow.mjs')],
      { timeout: 50_000, env: { ...process.env, KAPI_TESTING_DIR: dir, KAPI_TESTING_ETCD_LINGER_MS: '2000' } },
      (err, stdout, stderr) => (err ? reject(new Error(`flow failed: ${stderr || err.message}`)) : resolve({ ...JSON.parse(stdout), exitedAt: Date.now() })),
    );
  });
}

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

test('startKapi from the built package: two instances in parallel on one shared etcd, CRDs installed, client-node, an etcd URL and feature gates, the log, in-process, nothing left after stop()', async () => {
  const report = await runFlow();
  expect(report.sameFunction).toBe(true);
  expect(report.distinct).toEqual({ urls: true, prefixes: true, etcd: true });
  expect(report.a).toEqual({ server: report.urls.a, widgets: ['from-a'], namespaces: ['default', 'kube-node-lease', 'kube-public', 'kube-system'] });
  expect(report.b).toEqual({ server: report.urls.b, widgets: ['from-b'], namespaces: ['default', 'kube-node-lease', 'kube-public', 'kube-system'] });
  expect(report.external).toEqual({ sameEtcd: true, cbor: [200, 'application/cbor'] });
  expect(report.unknownGate).toContain('NoSuchGate');
  expect(report.secure).toEqual({ scheme: 'https:', user: 'client-certificate', namespaces: 4 });
  // The servers run in the testing host: the test process loads only the client...
  expect(report.serverLoadedByHostInstances).toBe(false);
  expect(report.logged).toBe(true);
  // ...unless it asks for one in-process.
  expect(report.inProcess).toEqual({ serverLoaded: true, widgets: 200, etcd: true });
  expect(report.kubeconfigsLeft).toBe(0);
  expect(report.keysLeft).toBe(0);
  // Stopped servers leave no timer behind: the process ends by itself (an in-process kapi's leader elector kept it 10 s).
  expect(report.exitedAt - report.reportedAt).toBeLessThan(5_000);
  // The flow's process has exited: the host retires, stopping etcd and removing its data, state and socket.
  expect(await eventually(() => readdirSync(dir).every((f) => f === 'host.log'), 15_000)).toBe(true);
});

test('a test process killed outright: the host stops its server and deletes its keys', async () => {
  const own = mkdtempSync(path.join(tmpdir(), 'kapi-testing-kill-'));
  const script = `require(${JSON.stringify(path.resolve(__dirname, '../../dist/testing'))}).startKapi().then((k) => process.stdout.write(JSON.stringify(k) + '\\n'))`;
  // A long linger keeps the host (and etcd) up after the kill, so what is left can be looked at.
  const child = spawn(process.execPath, ['-e', `${script}; setInterval(() => {}, 1000)`], {
    env: { ...process.env, KAPI_TESTING_DIR: own, KAPI_TESTING_ETCD_LINGER_MS: '60000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const kapi = await new Promise<{ url: string; etcdEndpoint: string; etcdPrefix: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(JSON.parse(out));
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code})`)));
    });
    expect((await fetch(`${kapi.url}/readyz`)).status).toBe(200);
    child.kill('SIGKILL');
    const refused = async (): Promise<boolean> =>
      fetch(`${kapi.url}/readyz`).then(
        () => false,
        () => true,
      );
    const deadline = Date.now() + 15_000;
    while (!(await refused()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await refused()).toBe(true);
    const etcd = new Etcd3({ hosts: [kapi.etcdEndpoint] });
    try {
      // The keys by name, so that a failure says what was left.
      const keys = (): Promise<string[]> => etcd.getAll().prefix(`${kapi.etcdPrefix}/`).keys();
      while ((await keys()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await keys()).toEqual([]);
    } finally {
      etcd.close();
    }
  } finally {
    child.kill('SIGKILL');
    const state = readdirSync(own).find((f) => /^state-\w+\.json$/.test(f))!;
    const host = JSON.parse(readFileSync(path.join(own, state), 'utf8')) as { hostPid: number };
    process.kill(host.hostPid, 'SIGTERM');
    expect(await eventually(() => readdirSync(own).every((f) => f === 'host.log'), 15_000)).toBe(true);
    rmSync(own, { recursive: true, force: true });
  }
});

test('two copies of kapi testing at once each get a host of their own build', async () => {
  const own = mkdtempSync(path.join(tmpdir(), 'kapi-testing-builds-'));
  const copy = mkdtempSync(path.join(tmpdir(), 'kapi-copy-'));
  const root = path.resolve(__dirname, '../..');
  cpSync(path.join(root, 'dist'), path.join(copy, 'dist'), { recursive: true });
  for (const entry of ['node_modules', 'package.json', 'proto']) symlinkSync(path.join(root, entry), path.join(copy, entry));
  const holders = [root, copy].map((at) => {
    const script = `require(${JSON.stringify(path.join(at, 'dist/testing'))}).startKapi().then(async (k) => { process.stdout.write((await fetch(k.url + '/readyz')).status + '\\n'); process.stdin.resume().once('end', () => k.stop()); })`;
    return spawn(process.execPath, ['-e', script], {
      env: { ...process.env, KAPI_TESTING_DIR: own, KAPI_TESTING_ETCD_LINGER_MS: '500' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
  });
  try {
    const ready = await Promise.all(
      holders.map((child) => new Promise<string>((resolve) => child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim())))),
    );
    expect(ready).toEqual(['200', '200']);
    expect(readdirSync(own).filter((f) => f.startsWith('state-'))).toHaveLength(2);
    for (const child of holders) child.stdin.end();
    expect(await eventually(() => readdirSync(own).every((f) => f === 'host.log'), 15_000)).toBe(true);
  } finally {
    for (const child of holders) child.kill('SIGKILL');
    rmSync(copy, { recursive: true, force: true });
    rmSync(own, { recursive: true, force: true });
  }
});

test('a testing host that does not answer is passed over: the next process starts a host of its own', async () => {
  const own = mkdtempSync(path.join(tmpdir(), 'kapi-testing-stopped-'));
  const env = { ...process.env, KAPI_TESTING_DIR: own, KAPI_TESTING_ETCD_LINGER_MS: '60000' };
  const script = `require(${JSON.stringify(path.resolve(__dirname, '../../dist/testing'))}).startKapi().then(async (k) => { process.stdout.write(String((await fetch(k.url + '/readyz')).status)); await k.stop(); })`;
  const run = (): Promise<string> =>
    new Promise((resolve, reject) =>
      execFile(process.execPath, ['-e', script], { env, timeout: 30_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(stderr || err.message)) : resolve(stdout),
      ),
    );
  const hostPid = (): number => {
    const state = readdirSync(own).find((f) => /^state-\w+\.json$/.test(f))!;
    return (JSON.parse(readFileSync(path.join(own, state), 'utf8')) as { hostPid: number }).hostPid;
  };
  const pids: number[] = [];
  try {
    expect(await run()).toBe('200');
    pids.push(hostPid());
    process.kill(pids[0], 'SIGSTOP');
    expect(await run()).toBe('200');
    pids.push(hostPid());
    expect(pids[1]).not.toBe(pids[0]);
  } finally {
    for (const pid of pids) {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGTERM');
    }
    expect(await eventually(() => readdirSync(own).every((f) => f === 'host.log'), 15_000)).toBe(true);
    rmSync(own, { recursive: true, force: true });
  }
});

test('importing kapi and kapi/testing starts nothing: the process exits at once and writes no file', async () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'kapi-import-'));
  mkdirSync(path.join(cwd, 'node_modules'));
  symlinkSync(path.resolve(__dirname, '../..'), path.join(cwd, 'node_modules/kapi'));
  try {
    const script = "require('kapi'); require('kapi/testing'); import('kapi').then((m) => process.stdout.write(typeof m.startKapi))";
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', script], { cwd, timeout: 20_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(stderr || err.message)) : resolve(stdout),
      ),
    );
    expect(out).toBe('function');
    expect(readdirSync(cwd)).toEqual(['node_modules']);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
