import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';
import { freePort } from '../../src/server/embedded-etcd';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

// A real etcd serving only TLS and asking for client certificates, with certificates made here.

let dir: string;
let etcd: ChildProcess;
let endpoint: string;
const file = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kapi-etcd-tls-'));
  const ca = createCertificateAuthority('etcd-ca');
  const server = createLeafCertificate(ca, { commonName: 'etcd', usage: 'server', hosts: ['127.0.0.1', 'localhost'], validDays: 1 });
  const client = createLeafCertificate(ca, { commonName: 'kube-apiserver-etcd-client', usage: 'client', validDays: 1 });
  for (const [name, content] of Object.entries({
    'ca.crt': ca.cert,
    'server.crt': server.cert,
    'server.key': server.key,
    'client.crt': client.cert,
    'client.key': client.key,
  })) {
    writeFileSync(file(name), content);
  }
  // A port freePort handed out may be taken again before etcd binds it: then etcd exits, and it is
  // started again on others, rather than leaving kapi to wait 30 s for an etcd that is not there.
  for (let attempt = 1; ; attempt++) {
    const clientPort = await freePort();
    let peerPort = await freePort();
    while (peerPort === clientPort) peerPort = await freePort();
    endpoint = `https://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    rmSync(file('data'), { recursive: true, force: true });
    etcd = spawn(
      process.env.KAPI_ETCD_BINARY ?? 'etcd',
      [
        '--name=tls',
        `--data-dir=${file('data')}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=tls=${peer}`,
        `--cert-file=${file('server.crt')}`,
        `--key-file=${file('server.key')}`,
        `--trusted-ca-file=${file('ca.crt')}`,
        '--client-cert-auth',
      ],
      { stdio: 'ignore' },
    );
    if (await healthy(etcd)) return;
    etcd.kill('SIGKILL');
    if (attempt === 3) throw new Error(`the TLS etcd did not listen on ${endpoint} (exit code ${etcd.exitCode})`);
  }
});

/**
 * Whether `child` answers /health on `endpoint` within 10 s, to this test's CA and client
 * certificate: a port taken by another listener accepts connections but does not answer so.
 * False once the child has exited.
 */
async function healthy(child: ChildProcess): Promise<boolean> {
  const tls = { ca: readFileSync(file('ca.crt')), cert: readFileSync(file('client.crt')), key: readFileSync(file('client.key')) };
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = get(`${endpoint}/health`, { ...tls, timeout: 1000 }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(res.statusCode === 200 && body.includes('"health":"true"')));
      });
      req.once('timeout', () => req.destroy());
      req.once('error', () => resolve(false));
    });
    if (ok) return child.exitCode === null;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

afterAll(async () => {
  if (etcd.exitCode === null) {
    const exited = new Promise((resolve) => etcd.once('exit', resolve));
    etcd.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test('https:// etcd servers with --etcd-cafile, --etcd-certfile and --etcd-keyfile: kapi stores and reads through TLS', async () => {
  const kapi = await startTestServer({
    etcdServers: [endpoint],
    etcdCaFile: file('ca.crt'),
    etcdCertFile: file('client.crt'),
    etcdKeyFile: file('client.key'),
  });
  try {
    const api = new Api(kapi.url);
    const created = await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'over-tls' }, data: { a: '1' } });
    expect(created.status).toBe(201);
    expect((await api.get('/api/v1/namespaces/default/configmaps/over-tls')).body.data).toEqual({ a: '1' });
  } finally {
    await kapi.close();
  }
});

test('without a client certificate, or dialled as plain http, the TLS etcd is unreachable', async () => {
  await expect(startTestServer({ etcdServers: [endpoint], etcdCaFile: file('ca.crt'), storageInitializationTimeoutMs: 1500 })).rejects.toThrow(
    /^cannot reach etcd at https:\/\/127\.0\.0\.1:\d+/,
  );
  await expect(
    startTestServer({
      etcdServers: [endpoint.replace('https', 'http')],
      etcdCaFile: file('ca.crt'),
      etcdCertFile: file('client.crt'),
      etcdKeyFile: file('client.key'),
      storageInitializationTimeoutMs: 1500,
    }),
  ).rejects.toThrow(/^cannot reach etcd at http:\/\//);
});
