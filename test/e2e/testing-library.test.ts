import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The shared etcd of this test only (its own state directory), stopped 2 s after nobody holds it. */
const dir = mkdtempSync(path.join(tmpdir(), 'kapi-testing-lib-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runFlow(): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(__dirname, 'testing-library-flow.mjs')],
      { timeout: 50_000, env: { ...process.env, KAPI_TESTING_DIR: dir, KAPI_TESTING_ETCD_LINGER_MS: '2000' } },
      (err, stdout, stderr) => (err ? reject(new Error(`flow failed: ${stderr || err.message}`)) : resolve(JSON.parse(stdout))),
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

test("startKapi from the built package: two instances in parallel on one shared etcd, CRDs installed, client-node, an etcd URL and feature gates, nothing left after stop()", async () => {
  const report = await runFlow();
  expect(report.sameFunction).toBe(true);
  expect(report.distinct).toEqual({ urls: true, prefixes: true, etcd: true });
  expect(report.a).toEqual({ server: report.urls.a, widgets: ['from-a'], namespaces: ['default', 'kube-node-lease', 'kube-public', 'kube-system'] });
  expect(report.b).toEqual({ server: report.urls.b, widgets: ['from-b'], namespaces: ['default', 'kube-node-lease', 'kube-public', 'kube-system'] });
  expect(report.external).toEqual({ sameEtcd: true, cbor: [200, 'application/cbor'] });
  expect(report.unknownGate).toContain('NoSuchGate');
  expect(report.secure).toEqual({ scheme: 'https:', user: 'client-certificate', namespaces: 4 });
  expect(report.kubeconfigsLeft).toBe(0);
  expect(report.keysLeft).toBe(0);
  // The flow's process has exited: the keeper stops etcd and removes its data and state.
  expect(await eventually(() => !existsSync(path.join(dir, 'state.json')) && readdirSync(dir).every((f) => !f.startsWith('etcd-')), 15_000)).toBe(true);
  expect(readdirSync(path.join(dir, 'refs'))).toEqual([]);
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
