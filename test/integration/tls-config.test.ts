import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { httpsRequest } from '../harness/tls';

let dir: string;
const file = (name: string) => path.join(dir, name);
const write = (name: string, content: string) => (writeFileSync(file(name), content), file(name));

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'kapi-tls-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The certificate a TLS server presents. */
function servedCertificate(url: string): Promise<X509Certificate> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      const cert = new X509Certificate(socket.getPeerCertificate().raw);
      socket.destroy();
      resolve(cert);
    });
    socket.on('error', reject);
  });
}

test('the generated CA and serving certificate are reused at restart; a new --advertise-address gets a new serving certificate from the same CA', async () => {
  const dataDir = path.join(dir, 'data');
  const pki = (name: string) => readFileSync(path.join(dataDir, 'pki', name), 'utf8');
  const first = await startTestServer({ dataDir });
  const [ca, serving, saKey] = [pki('ca.crt'), pki('apiserver.crt'), pki('sa.key')];
  expect((await servedCertificate(first.secureUrl)).toString()).toBe(new X509Certificate(serving).toString());
  await first.close();
  const second = await startTestServer({ dataDir });
  expect([pki('ca.crt'), pki('apiserver.crt'), pki('sa.key')]).toEqual([ca, serving, saKey]);
  await second.close();
  const moved = await startTestServer({ dataDir, advertiseAddress: '10.1.2.3' });
  try {
    expect(pki('ca.crt')).toBe(ca);
    expect(pki('apiserver.crt')).not.toBe(serving);
    const cert = new X509Certificate(pki('apiserver.crt'));
    expect(cert.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(cert.checkHost('kubernetes.default.svc.cluster.local')).toBe('kubernetes.default.svc.cluster.local');
    expect(cert.verify(new X509Certificate(ca).publicKey)).toBe(true);
    expect((await httpsRequest(`${moved.secureUrl}/version`, { ca })).status).toBe(200);
  } finally {
    await moved.close();
  }
});

test('--tls-cert-file, --tls-private-key-file and --client-ca-file given: served and trusted as given, nothing generated but the service account key', async () => {
  const serverCa = createCertificateAuthority('my-server-ca');
  const clientCa = createCertificateAuthority('my-client-ca');
  const serving = createLeafCertificate(serverCa, { commonName: 'my-apiserver', usage: 'server', hosts: ['127.0.0.1'], validDays: 1 });
  const dataDir = path.join(dir, 'given');
  const server = await startTestServer({
    dataDir,
    tlsCertFile: write('serving.crt', serving.cert + serverCa.cert),
    tlsPrivateKeyFile: write('serving.key', serving.key),
    clientCaFile: write('client-ca.crt', clientCa.cert),
    anonymousAuth: false,
  });
  try {
    expect(server.adminKubeconfig).toBeNull();
    expect(existsSync(path.join(dataDir, 'pki', 'ca.crt'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'admin.kubeconfig'))).toBe(false);
    const user = createLeafCertificate(clientCa, { commonName: 'bob', usage: 'client', validDays: 1 });
    expect((await httpsRequest(`${server.secureUrl}/api`, { ca: serverCa.cert, ...user })).status).toBe(200);
    expect((await httpsRequest(`${server.secureUrl}/api`, { ca: serverCa.cert })).status).toBe(401);
    const other = createLeafCertificate(serverCa, { commonName: 'bob', usage: 'client', validDays: 1 });
    expect((await httpsRequest(`${server.secureUrl}/api`, { ca: serverCa.cert, ...other })).status).toBe(401);
  } finally {
    await server.close();
  }
});

test('an RSA signing key signs RS256; verification keys from several files let a rotated server accept the old key tokens', async () => {
  const pem = (key: ReturnType<typeof generateKeyPairSync>['privateKey'], type: 'pkcs8' | 'spki') => key.export({ type, format: 'pem' }).toString();
  const oldKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const newKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const old = await startTestServer({ serviceAccountSigningKeyFile: write('old.key', pem(oldKey.privateKey, 'pkcs8')) });
  let token: string;
  try {
    const api = new Api(old.url);
    await api.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'bot' } });
    token = (await api.post('/api/v1/namespaces/default/serviceaccounts/bot/token', { spec: {} })).body.status.token;
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).alg).toBe('RS256');
    const jwks = (await api.get('/openid/v1/jwks')).body;
    expect(jwks.keys).toEqual([{ use: 'sig', kty: 'RSA', kid: expect.any(String), alg: 'RS256', n: expect.any(String), e: 'AQAB' }]);
  } finally {
    await old.close();
  }
  const rotated = await startTestServer({
    etcdPrefix: old.prefix,
    serviceAccountSigningKeyFile: write('new.key', pem(newKey.privateKey, 'pkcs8')),
    serviceAccountKeyFiles: [write('new.pub', pem(newKey.publicKey, 'spki')), write('old.pub', pem(oldKey.publicKey, 'spki'))],
  });
  try {
    const api = new Api(rotated.url);
    expect((await api.post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token } })).body.status.authenticated).toBe(true);
    const fresh = (await api.post('/api/v1/namespaces/default/serviceaccounts/bot/token', { spec: {} })).body.status.token;
    expect(JSON.parse(Buffer.from(fresh.split('.')[0], 'base64url').toString()).alg).toBe('ES256');
    expect((await api.get('/.well-known/openid-configuration')).body.id_token_signing_alg_values_supported).toEqual(['ES256', 'RS256']);
    expect((await api.get('/openid/v1/jwks')).body.keys.map((k: { kty: string }) => k.kty)).toEqual(['EC', 'RSA']);
  } finally {
    await rotated.close();
  }
});

test("a non-https issuer publishes no discovery documents; tokens of another issuer are not the cluster's", async () => {
  const server = await startTestServer({ serviceAccountIssuers: ['kapi-issuer'], apiAudiences: ['aud-1'] });
  try {
    const api = new Api(server.url);
    expect((await api.get('/.well-known/openid-configuration')).status).toBe(404);
    expect((await api.get('/openid/v1/jwks')).status).toBe(404);
    await api.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'bot' } });
    const res = await api.post('/api/v1/namespaces/default/serviceaccounts/bot/token', { spec: {} });
    expect(res.body.spec.audiences).toEqual(['aud-1']);
    const claims = JSON.parse(Buffer.from(res.body.status.token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ iss: 'kapi-issuer', aud: ['aud-1'] });
    const unknownIssuer = `${res.body.status.token.split('.')[0]}.${Buffer.from(JSON.stringify({ ...claims, iss: 'elsewhere' })).toString('base64url')}.x`;
    expect((await api.post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: unknownIssuer } })).body.status).toEqual({
      user: {},
      error: 'invalid bearer token',
    });
  } finally {
    await server.close();
  }
});
