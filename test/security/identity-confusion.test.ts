import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLeafCertificate, type PemPair } from '../../src/auth/certificates';
import { certificateSubject } from '../../src/auth/x509-name';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { httpsRequest, run, type TlsOptions, type TlsResponse } from '../harness/tls';
import { cn, forgeCertificate, forgeCertificateRequest, nameOf, newKey, o, OID, STRING, type Key } from '../harness/x509-forge';

/**
 * Identity confusion (issue 20, items 1, 6, 7 and 8): a client that holds some credential tries
 * to be read as someone else, over real TLS against the built server. Each answer is kube-apiserver's.
 */

const SECRETS = '/api/v1/secrets';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const STATIC_TOKEN = 'static-token-of-ivy';

let server: ServerProcess;
let tokenDir: string;
let pki: { ca: PemPair; frontProxyCa: PemPair };
let admin: TlsOptions;

const read = (file: string): string => readFileSync(path.join(server.dataDir, 'pki', file), 'utf8');
const as = (pair: { cert: string; key: string }): TlsOptions => ({ ca: pki.ca.cert, cert: pair.cert, key: pair.key });
const get = (target: string, tls: TlsOptions, headers: Record<string, string> = {}): Promise<TlsResponse> =>
  httpsRequest(`${server.secureUrl}${target}`, tls, { headers });
const whoAmI = async (tls: TlsOptions): Promise<TlsResponse> =>
  httpsRequest(`${server.secureUrl}/apis/authentication.k8s.io/v1/selfsubjectreviews`, tls, {
    method: 'POST',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });

beforeAll(async () => {
  tokenDir = mkdtempSync(path.join(tmpdir(), 'kapi-tokens-'));
  writeFileSync(path.join(tokenDir, 'tokens.csv'), `${STATIC_TOKEN},ivy,uid-ivy,"readers"\n`);
  server = await startServerProcess([`--token-auth-file=${path.join(tokenDir, 'tokens.csv')}`], { insecure: false });
  pki = { ca: { cert: read('ca.crt'), key: read('ca.key') }, frontProxyCa: { cert: read('front-proxy-ca.crt'), key: read('front-proxy-ca.key') } };
  const kubeconfig = readFileSync(path.join(server.dataDir, 'admin.kubeconfig'), 'utf8');
  const field = (name: string) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kubeconfig)![1], 'base64').toString();
  admin = { ca: pki.ca.cert, cert: field('client-certificate-data'), key: field('client-key-data') };
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(tokenDir, { recursive: true, force: true });
});

describe('bearer tokens', () => {
  test("a token after a second space authenticates nothing, with kube's warning", async () => {
    // The request is anonymous (--anonymous-auth is on), not ivy's.
    const res = await get(SECRETS, { ca: pki.ca.cert }, { Authorization: `Bearer  ${STATIC_TOKEN}` });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('User "system:anonymous" cannot list resource "secrets"');
    expect(res.headers.warning).toBe('299 - "the provided Authorization header contains extra space before the bearer token, and is ignored"');
    const ivy = await get(SECRETS, { ca: pki.ca.cert }, { Authorization: `Bearer ${STATIC_TOKEN}` });
    expect(ivy.body.message).toContain('User "ivy" cannot list resource "secrets"');
    expect(ivy.headers.warning).toBeUndefined();
  });
});

describe('TLS renegotiation', () => {
  test('a client that renegotiates with a self-signed system:masters certificate is cut off, never made an admin', async () => {
    const mallory = createLeafCertificate(pki.ca, { commonName: 'mallory', usage: 'client', validDays: 1 });
    const key = newKey();
    const masters = nameOf(o('system:masters'), cn('evil'));
    const forged = forgeCertificate({ subject: masters, issuer: masters, key, signingKey: key.privateKey, ca: true, usages: [OID.clientAuth] });
    const files = { first: mallory.cert, firstKey: mallory.key, second: forged, secondKey: key.pem };
    for (const [name, pem] of Object.entries(files)) writeFileSync(path.join(tokenDir, name), pem, { mode: 0o600 });
    const { hostname, port } = new URL(server.secureUrl);
    // OpenSSL itself (node's client cannot change its certificate between handshakes).
    const client = await run('python3', [
      path.join(__dirname, 'clients/renegotiate.py'),
      hostname,
      port,
      SECRETS,
      ...['first', 'firstKey', 'second', 'secondKey'].map((f) => path.join(tokenDir, f)),
    ]);
    expect(client.stderr).toBe('');
    // Go's server refuses to renegotiate, and the connection is lost with it.
    expect(JSON.parse(client.stdout)).toEqual({ before: 403, renegotiated: false, after: 'closed' });
  });
});

const keyOf = (pair: PemPair): KeyObject => createPrivateKey(pair.key);

/** A CA signed by `issuer`, as an attacker holding a CA key could mint. */
function intermediateOf(issuer: PemPair, name: string): { cert: string; key: Key } {
  const key = newKey();
  const issuerName = certificateSubject(new X509Certificate(issuer.cert).raw);
  const cert = forgeCertificate({ subject: nameOf(cn(name)), issuer: issuerName, key, signingKey: keyOf(issuer), ca: true });
  return { cert, key };
}

describe('client CA and front-proxy CA kept apart', () => {
  test('a certificate chained through an intermediate of the front-proxy CA is no x509 user: 401', async () => {
    const intermediate = intermediateOf(pki.frontProxyCa, 'proxy-intermediate');
    const key = newKey();
    const leaf = forgeCertificate({
      subject: nameOf(o('system:masters'), cn('chained-admin')),
      issuer: nameOf(cn('proxy-intermediate')),
      key,
      signingKey: intermediate.key.privateKey,
      usages: [OID.clientAuth],
    });
    const res = await get(SECRETS, { ca: pki.ca.cert, cert: `${leaf}${intermediate.cert}`, key: key.pem });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  test('a chain through an intermediate of the client CA authenticates as its CN, as Go verifies with intermediates', async () => {
    const intermediate = intermediateOf(pki.ca, 'client-intermediate');
    const key = newKey();
    const leaf = forgeCertificate({
      subject: nameOf(cn('chained-user')),
      issuer: nameOf(cn('client-intermediate')),
      key,
      signingKey: intermediate.key.privateKey,
      usages: [OID.clientAuth],
    });
    const res = await whoAmI({ ca: pki.ca.cert, cert: `${leaf}${intermediate.cert}`, key: key.pem });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo.username).toBe('chained-user');
  });
});

describe('requestheader spoofing', () => {
  const spoofed = { 'X-Remote-User': 'root', 'X-Remote-Group': 'system:masters' };

  test('a front-proxy CA certificate without the client auth usage may not assert users: 401', async () => {
    const key = newKey();
    const leaf = forgeCertificate({
      subject: nameOf(cn('front-proxy-client')),
      issuer: certificateSubject(new X509Certificate(pki.frontProxyCa.cert).raw),
      key,
      signingKey: keyOf(pki.frontProxyCa),
      usages: [OID.serverAuth],
    });
    const res = await get(SECRETS, { ca: pki.ca.cert, cert: leaf, key: key.pem }, spoofed);
    expect(res.status).toBe(401);
  });

  test('a client CA certificate named front-proxy-client asserts nothing: it is only its own user', async () => {
    const impostor = createLeafCertificate(pki.ca, { commonName: 'front-proxy-client', usage: 'client', validDays: 1 });
    const res = await get(SECRETS, as(impostor), spoofed);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('secrets is forbidden: User "front-proxy-client" cannot list resource "secrets" in API group "" at the cluster scope');
  });

  test('the front proxy itself with a name outside --requestheader-allowed-names: 401', async () => {
    const proxy = createLeafCertificate(pki.frontProxyCa, { commonName: 'some-other-proxy', usage: 'client', validDays: 1 });
    expect((await get(SECRETS, as(proxy), spoofed)).status).toBe(401);
  });
});

/** Creates a CSR as the admin; the answer as it is. */
const createCsr = (name: string, subject: Buffer, signerName: string): Promise<TlsResponse> =>
  httpsRequest(`${server.secureUrl}${CSRS}`, admin, {
    method: 'POST',
    body: {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: {
        request: Buffer.from(forgeCertificateRequest(subject, newKey())).toString('base64'),
        signerName,
        usages: ['digital signature', 'key encipherment', 'client auth'],
      },
    },
  });

describe('CSR subjects are read as the certificate will be', () => {
  test.each([
    ['bmp', STRING.bmp],
    ['t61', STRING.t61],
    ['printable', STRING.printable],
    ['ia5', STRING.ia5],
  ])('O=system:masters as a %s string is refused by CertificateSubjectRestriction: 403', async (kind, encode) => {
    const name = `masters-${kind}`;
    const res = await createCsr(name, nameOf(o('system:masters', encode), cn('sneaky')), 'kubernetes.io/kube-apiserver-client');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      message: `certificatesigningrequests.certificates.k8s.io "${name}" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`,
      details: { name, group: 'certificates.k8s.io', kind: 'certificatesigningrequests' },
    });
  });

  test('a kubelet client certificate with two CNs is the node of the last CN, where the signer looked, never the first', async () => {
    const key = newKey();
    const subject = nameOf(cn('mallory'), cn('system:node:n1'), o('system:nodes'));
    const created = await httpsRequest(`${server.secureUrl}${CSRS}`, admin, {
      method: 'POST',
      body: {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name: 'two-cns' },
        spec: {
          request: Buffer.from(forgeCertificateRequest(subject, key)).toString('base64'),
          signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
          usages: ['digital signature', 'client auth'],
        },
      },
    });
    expect(created.status).toBe(201);
    const approval = { ...created.body, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved' }] } };
    expect((await httpsRequest(`${server.secureUrl}${CSRS}/two-cns/approval`, admin, { method: 'PUT', body: approval })).status).toBe(200);
    let certificate = '';
    for (let i = 0; i < 100 && !certificate; i++) {
      const csr = await get(`${CSRS}/two-cns`, admin);
      certificate = csr.body.status?.certificate ?? '';
      if (!certificate) await new Promise((r) => setTimeout(r, 100));
    }
    expect(certificate).not.toBe('');
    const res = await whoAmI({ ca: pki.ca.cert, cert: Buffer.from(certificate, 'base64').toString(), key: key.pem });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toMatchObject({ username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] });
  });

  test('an O=system:masters of a string type Go cannot read names no group, and the certificate signed from it authenticates no one', async () => {
    const key = newKey();
    const subject = nameOf(o('system:masters', STRING.universal), cn('universal'));
    const ca = new X509Certificate(pki.ca.cert);
    // As if a signer had signed the request (kube admits it: encoding/asn1 leaves the value unread).
    const created = await createCsr('masters-universal', subject, 'kubernetes.io/kube-apiserver-client');
    expect(created.status).toBe(201);
    const cert = forgeCertificate({ subject, issuer: certificateSubject(ca.raw), key, signingKey: keyOf(pki.ca), usages: [OID.clientAuth] });
    const res = await get(SECRETS, { ca: pki.ca.cert, cert, key: key.pem });
    // Go's TLS stack refuses the certificate at the handshake; kapi answers 401. Never 200.
    expect(res.status).toBe(401);
  });
});

describe('TokenReview audiences', () => {
  const review = (audiences?: string[]) =>
    httpsRequest(`${server.secureUrl}/apis/authentication.k8s.io/v1/tokenreviews`, admin, {
      method: 'POST',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: STATIC_TOKEN, ...(audiences ? { audiences } : {}) } },
    });

  test("a static token reviewed for another service's audience is not authenticated", async () => {
    const res = await review(['vault']);
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  test("for the API server's audiences (asked, or none asked) it is, for the audiences shared", async () => {
    const api = 'https://kubernetes.default.svc.cluster.local';
    for (const audiences of [undefined, ['vault', api]]) {
      const res = await review(audiences);
      expect(res.status).toBe(201);
      expect(res.body.status).toEqual({
        authenticated: true,
        user: { username: 'ivy', uid: 'uid-ivy', groups: ['readers', 'system:authenticated'] },
        audiences: [api],
      });
    }
  });
});

describe('the admin credential', () => {
  test('a restart keeps the admin certificate it issued (still valid, same CA) instead of minting another year-long system:masters one', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kapi-admin-'));
    const adminCert = () => /client-certificate-data: (\S+)/.exec(readFileSync(path.join(dataDir, 'admin.kubeconfig'), 'utf8'))![1];
    try {
      const first = await startServerProcess([], { insecure: false, dataDir });
      const issued = adminCert();
      await first.stop();
      const second = await startServerProcess([], { insecure: false, dataDir });
      try {
        expect(adminCert()).toBe(issued);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
