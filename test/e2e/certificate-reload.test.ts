import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, createLeafCertificate, type PemPair } from '../../src/auth/certificates';
import { writeFileAtomically } from '../../src/auth/pki-files';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { httpsRequest } from '../harness/tls';

// The serving certificate, the client CA and the front-proxy CA are rotated on disk under a
// running server: new connections see the new ones, open connections keep theirs.

const dir = mkdtempSync(path.join(tmpdir(), 'kapi-cert-reload-'));
const file = (name: string) => path.join(dir, name);
const servingCa = [createCertificateAuthority('serving-ca-1'), createCertificateAuthority('serving-ca-2')];
const serving = servingCa.map((ca, i) => createLeafCertificate(ca, { commonName: `kapi-${i + 1}`, usage: 'server', hosts: ['127.0.0.1'], validDays: 1 }));
const clientCa = [createCertificateAuthority('client-ca-1'), createCertificateAuthority('client-ca-2')];
const admin = clientCa.map((ca) => createLeafCertificate(ca, { commonName: 'alice', organizations: ['system:masters'], usage: 'client', validDays: 1 }));
const proxyCa = [createCertificateAuthority('front-proxy-ca-1'), createCertificateAuthority('front-proxy-ca-2')];
const proxy = proxyCa.map((ca) => createLeafCertificate(ca, { commonName: 'front-proxy-client', usage: 'client', validDays: 1 }));
/** Trusts either serving CA: the test asks which certificate was served. */
const bothServingCas = servingCa.map((ca) => ca.cert).join('\n');

let server: ServerProcess;

beforeAll(async () => {
  writeFileSync(file('serving.crt'), serving[0].cert);
  writeFileSync(file('serving.key'), serving[0].key);
  writeFileSync(file('client-ca.crt'), clientCa[0].cert);
  writeFileSync(file('front-proxy-ca.crt'), proxyCa[0].cert);
  server = await startServerProcess(
    [
      `--tls-cert-file=${file('serving.crt')}`,
      `--tls-private-key-file=${file('serving.key')}`,
      `--client-ca-file=${file('client-ca.crt')}`,
      `--requestheader-client-ca-file=${file('front-proxy-ca.crt')}`,
      '--requestheader-allowed-names=front-proxy-client',
    ],
    { insecure: false, readyAs: admin[0] },
  );
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Polls until `check` holds (bounded); the watch usually sees a change within milliseconds. */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A GET over `agent`'s one kept-alive connection: the status, and whether the connection was the one already open. */
function getOver(agent: Agent, credentials: PemPair): Promise<{ status: number; reused: boolean; served: X509Certificate }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.secureUrl}/api`, { agent, ca: bothServingCas, ...credentials }, (res) => {
      const served = new X509Certificate((res.socket as TLSSocket).getPeerCertificate().raw);
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, served }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The serving certificate a new connection is given. */
async function servedOnNewConnection(): Promise<string> {
  const agent = new Agent({ keepAlive: false });
  try {
    return (await getOver(agent, admin[0])).served.serialNumber;
  } finally {
    agent.destroy();
  }
}

const serialOf = (pair: PemPair) => new X509Certificate(pair.cert).serialNumber;

test('a rotated serving certificate reaches new connections; a half-written pair keeps the old one; open connections are kept', async () => {
  const kept = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const before = await getOver(kept, admin[0]);
    expect(before.status).toBe(200);
    expect(before.served.serialNumber).toBe(serialOf(serving[0]));

    // The certificate first, then its key: between the two the pair does not match, and is not taken.
    writeFileAtomically(file('serving.crt'), serving[1].cert, 0o644);
    await eventually(
      async () => server.output().includes(`serving-cert::${file('serving.crt')}::${file('serving.key')} failed with`),
      'the mismatched pair logged',
    );
    expect(await servedOnNewConnection()).toBe(serialOf(serving[0]));
    writeFileSync(file('serving.key'), serving[1].key);
    await eventually(async () => (await servedOnNewConnection()) === serialOf(serving[1]), 'the new serving certificate served');

    // The connection opened before the rotation still serves, with the certificate of its handshake.
    const after = await getOver(kept, admin[0]);
    expect(after).toMatchObject({ status: 200, reused: true });
    expect(after.served.serialNumber).toBe(serialOf(serving[0]));
  } finally {
    kept.destroy();
  }
}, 60_000);

test('a rotated client CA: certificates of the new CA authenticate, those of the old get 401; the front-proxy CA and the published configmap follow', async () => {
  const tls = (credentials: PemPair) => ({ ca: bothServingCas, ...credentials });
  const namespaces = `${server.secureUrl}/api/v1/namespaces/default`;
  expect((await httpsRequest(namespaces, tls(admin[0]))).status).toBe(200);
  expect((await httpsRequest(namespaces, tls(admin[1]))).status).toBe(401);

  writeFileAtomically(file('client-ca.crt'), clientCa[1].cert, 0o644);
  await eventually(async () => (await httpsRequest(namespaces, tls(admin[1]))).status === 200, 'a certificate of the new client CA accepted');
  const refused = await httpsRequest(namespaces, tls(admin[0]));
  expect(refused.status).toBe(401);
  expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });

  // A front proxy asserts a user in headers only with a certificate of the requestheader CA of the moment.
  const review = (credentials: PemPair) =>
    httpsRequest(`${server.secureUrl}/apis/authentication.k8s.io/v1/selfsubjectreviews`, tls(credentials), {
      method: 'POST',
      headers: { 'X-Remote-User': 'bob', 'X-Remote-Group': 'team-b' },
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
  expect((await review(proxy[0])).body.status.userInfo.username).toBe('bob');
  writeFileSync(file('front-proxy-ca.crt'), proxyCa[1].cert);
  await eventually(async () => (await review(proxy[1])).status === 201, 'a proxy certificate of the new front-proxy CA accepted');
  expect((await review(proxy[1])).body.status.userInfo).toMatchObject({ username: 'bob', groups: ['team-b', 'system:authenticated'] });
  expect((await review(proxy[0])).status).toBe(401);

  const published = async () =>
    (await httpsRequest(`${server.secureUrl}/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication`, tls(admin[1]))).body;
  await eventually(async () => {
    const { data } = await published();
    return data['client-ca-file'] === clientCa[1].cert && data['requestheader-client-ca-file'] === proxyCa[1].cert;
  }, 'extension-apiserver-authentication holds the new CAs');

  // Every client certificate the x509 authenticator was given, refused ones too, by remaining lifetime (all under a day here).
  const metrics = (await httpsRequest(`${server.secureUrl}/metrics`, tls(admin[1]))).text;
  const sample = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1]);
  const count = sample('apiserver_client_certificate_expiration_seconds_count');
  expect(count).toBeGreaterThan(5);
  expect(sample('apiserver_client_certificate_expiration_seconds_bucket\\{le="86400"\\}')).toBe(count);
  expect(sample('apiserver_client_certificate_expiration_seconds_bucket\\{le="43200"\\}')).toBe(0);
}, 60_000);
