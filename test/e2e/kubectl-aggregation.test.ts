import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../harness/etcd-keys';
import { serviceFor, startExtensionServer, wardleApiService, WARDLE_GROUP, WARDLE_VERSION, type ExtensionServer } from '../harness/extension-apiserver';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { run } from '../harness/tls';

// The aggregation layer end to end over TLS: `kubectl get apiservices` looks like kube's, an
// extension server's resource is created and read with kubectl, and read with client-node.

let kapi: ServerProcess & { port: number; prefix: string };
let wardle: ExtensionServer;
let dir: string;
let kubeconfig: string;

const kubectl = (args: string[], input?: string) => {
  if (input === undefined) return run('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], { HOME: dir });
  const file = path.join(dir, `in-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, input);
  return run('kubectl', [`--kubeconfig=${kubeconfig}`, ...args.map((a) => (a === '-' ? file : a))], { HOME: dir });
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kapi-aggregation-'));
  kapi = await startServerProcess([], { insecure: false });
  kubeconfig = path.join(kapi.dataDir, 'admin.kubeconfig');
  const auth = JSON.parse((await kubectl(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json'])).stdout);
  wardle = await startExtensionServer({
    requestHeaderCa: auth.data['requestheader-client-ca-file'],
    allowedNames: JSON.parse(auth.data['requestheader-allowed-names']),
    serviceName: 'wardle',
    namespace: 'default',
  });
  const { service, endpoints } = serviceFor('wardle', 'default', wardle.port);
  const items = { apiVersion: 'v1', kind: 'List', items: [service, endpoints, wardleApiService(wardle.caBundle, 'wardle', 'default')] };
  const applied = await kubectl(['create', '-f', '-'], JSON.stringify(items));
  expect(applied.code).toBe(0);
});

afterAll(async () => {
  await kapi?.stop();
  await wardle?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('kubectl get apiservices prints NAME, SERVICE, AVAILABLE, AGE with Local and remote rows', async () => {
  const out = await eventually('wardle available', async () => {
    const res = await kubectl(['get', 'apiservices']);
    return /v1alpha1\.wardle\.example\.com\s+default\/wardle\s+True\s/.test(res.stdout) ? res.stdout : undefined;
  });
  const lines = out.trim().split('\n');
  expect(lines[0].split(/\s+/)).toEqual(['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
  expect(
    lines
      .find((l) => l.startsWith('v1. '))
      ?.split(/\s+/)
      .slice(0, 3),
  ).toEqual(['v1.', 'Local', 'True']);
  expect(
    lines
      .find((l) => l.startsWith('v1.apps '))
      ?.split(/\s+/)
      .slice(0, 3),
  ).toEqual(['v1.apps', 'Local', 'True']);
});

test("kubectl creates and gets the extension server's resource, found through aggregated discovery", async () => {
  await eventually('flunders in discovery', async () =>
    (await kubectl(['api-resources', `--api-group=${WARDLE_GROUP}`])).stdout.includes('flunders') ? true : undefined,
  );
  const created = await kubectl(
    ['create', '-f', '-'],
    JSON.stringify({ apiVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`, kind: 'Flunder', metadata: { name: 'from-kubectl' }, spec: { color: 'green' } }),
  );
  expect(created.stderr).toBe('');
  expect(created.stdout.trim()).toBe(`flunder.${WARDLE_GROUP}/from-kubectl created`);
  const table = await kubectl(['get', 'flunders']);
  expect(
    table.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)),
  ).toEqual([
    ['NAME', 'COLOR'],
    ['from-kubectl', 'green'],
  ]);
  const short = await kubectl(['get', 'fl', 'from-kubectl', '-o', 'jsonpath={.spec.color}']);
  expect(short.stdout).toBe('green');
  // kubectl's requests reached the extension server as the admin of the kubeconfig.
  expect(wardle.seen[wardle.seen.length - 1].headers['x-remote-user']).toBe('kubernetes-admin');
});

test("client-node reads and lists the extension server's objects through kapi", async () => {
  const report = await new Promise<Record<string, any>>((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(__dirname, 'aggregation-client-flow.mjs'), kubeconfig, WARDLE_GROUP, WARDLE_VERSION],
      { timeout: 30_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`client-node flow failed: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
  expect(report.read).toMatchObject({ kind: 'Flunder', metadata: { name: 'from-kubectl', namespace: 'default' }, spec: { color: 'green' } });
  expect(report.listed).toEqual(['from-kubectl']);
});
