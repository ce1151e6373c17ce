import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { eventually } from '../harness/etcd-keys';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { opensslCertificateRequest, run } from '../harness/tls';

// CertificateSigningRequests end to end over TLS: a CSR created as a user records that user,
// `kubectl certificate approve` gets it signed by the cluster CA, and the certificate with its key
// authenticates as the CSR's subject; `kubectl certificate deny` leaves it unsigned.

let kapi: ServerProcess & { port: number; prefix: string };
let dir: string;
let kubeconfig: string;
let caFile: string;

const kubectl = (args: string[], input?: string) => {
  if (input === undefined) return run('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], { HOME: dir });
  const file = path.join(dir, `in-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, input);
  return run('kubectl', [`--kubeconfig=${kubeconfig}`, ...args.map((a) => (a === '-' ? file : a))], { HOME: dir });
};

/** A key and a PEM certificate request for `subject`, made by openssl. */
const certificateRequest = (name: string, subject: string): Promise<{ key: string; csr: string }> => opensslCertificateRequest(dir, name, subject);

function csrManifest(name: string, request: string, signerName = 'kubernetes.io/kube-apiserver-client', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(request).toString('base64'), signerName, usages: ['client auth'], expirationSeconds: 3600, ...extra },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kapi-csr-'));
  kapi = await startServerProcess([], { insecure: false });
  kubeconfig = path.join(kapi.dataDir, 'admin.kubeconfig');
  const config = yaml.load(readFileSync(kubeconfig, 'utf8')) as { clusters: { cluster: { 'certificate-authority-data': string } }[] };
  caFile = path.join(dir, 'ca.crt');
  writeFileSync(caFile, Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64'));
});

afterAll(async () => {
  await kapi?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a CSR created as alice is approved, signed by the cluster CA, and its certificate authenticates as its subject', async () => {
  const { key, csr } = await certificateRequest('carol', '/O=team-a/CN=carol');
  const created = await kubectl(['create', '--as=alice', '--as-group=system:masters', '-f', '-'], csrManifest('carol', csr));
  expect(created.stderr).toBe('');
  const stored = JSON.parse((await kubectl(['get', 'csr', 'carol', '-o', 'json'])).stdout);
  expect(stored.spec).toMatchObject({ username: 'alice', groups: ['system:masters', 'system:authenticated'] });
  const pending = await kubectl(['get', 'csr', 'carol']);
  expect(pending.stdout).toMatch(/^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\n/);
  expect(pending.stdout).toMatch(/carol\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+alice\s+60m\s+Pending\n/);

  const approved = await kubectl(['certificate', 'approve', 'carol']);
  expect(approved.stdout.trim()).toBe('certificatesigningrequest.certificates.k8s.io/carol approved');
  const certificate = await eventually('carol is issued', async () => {
    const got = JSON.parse((await kubectl(['get', 'csr', 'carol', '-o', 'json'])).stdout);
    return got.status?.certificate ? Buffer.from(got.status.certificate, 'base64').toString() : undefined;
  });
  expect(certificate).toContain('-----BEGIN CERTIFICATE-----');
  expect((await kubectl(['get', 'csr', 'carol', '--no-headers'])).stdout).toMatch(/Approved,Issued/);
  const approval = JSON.parse((await kubectl(['get', 'csr', 'carol', '-o', 'json'])).stdout).status.conditions;
  expect(approval).toEqual([expect.objectContaining({ type: 'Approved', status: 'True', reason: 'KubectlApprove' })]);

  const certFile = path.join(dir, 'carol.crt');
  writeFileSync(certFile, certificate);
  const asCarol = await run(
    'kubectl',
    [
      '--kubeconfig=/dev/null',
      `--server=${kapi.secureUrl}`,
      `--certificate-authority=${caFile}`,
      `--client-certificate=${certFile}`,
      `--client-key=${key}`,
      'auth',
      'whoami',
      '-o',
      'json',
    ],
    { HOME: dir },
  );
  expect(asCarol.stderr).toBe('');
  expect(JSON.parse(asCarol.stdout).status.userInfo).toMatchObject({ username: 'carol', groups: ['team-a', 'system:authenticated'] });
  // Once approved, a CSR cannot also be denied (kubectl refuses on its own; the server too).
  const stored2 = JSON.parse((await kubectl(['get', 'csr', 'carol', '-o', 'json'])).stdout);
  stored2.status.conditions.push({ type: 'Denied', status: 'True', reason: 'Nope' });
  const both = await kubectl(['replace', '--subresource=approval', '-f', '-'], JSON.stringify(stored2));
  expect(both.stderr).toContain('status.conditions: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive');
});

test('a denied CSR is never signed; the approval subresource writes only conditions; a bad request is refused', async () => {
  const { csr } = await certificateRequest('dave', '/CN=dave');
  expect((await kubectl(['create', '-f', '-'], csrManifest('dave', csr))).stderr).toBe('');
  expect((await kubectl(['certificate', 'deny', 'dave'])).stdout.trim()).toBe('certificatesigningrequest.certificates.k8s.io/dave denied');
  await new Promise((r) => setTimeout(r, 1000));
  const got = JSON.parse((await kubectl(['get', 'csr', 'dave', '-o', 'json'])).stdout);
  expect(got.status.certificate).toBeUndefined();
  expect((await kubectl(['get', 'csr', 'dave', '--no-headers'])).stdout).toMatch(/\sDenied\n/);
  // The approval subresource does not take a certificate.
  const forged = { ...got, status: { ...got.status, certificate: Buffer.from('x').toString('base64') } };
  const replaced = await kubectl(['replace', '--subresource=approval', '-f', '-'], JSON.stringify(forged));
  expect(replaced.stderr).toBe('');
  expect(JSON.parse((await kubectl(['get', 'csr', 'dave', '-o', 'json'])).stdout).status.certificate).toBeUndefined();

  const bad = await kubectl(
    ['create', '-f', '-'],
    csrManifest('bad', 'not a pem', 'kubernetes.io/kube-apiserver-client', { expirationSeconds: 60, usages: ['client auth', 'flying'] }),
  );
  expect(bad.stderr).toContain('spec.request: Invalid value');
  expect(bad.stderr).toContain('PEM block type must be CERTIFICATE REQUEST');
  expect(bad.stderr).toContain('spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)');
  expect(bad.stderr).toContain('spec.usages[1]: Unsupported value: "flying"');
  const unsigned = await kubectl(['create', '-f', '-'], csrManifest('nosigner', csr, ''));
  expect(unsigned.stderr).toContain('spec.signerName: Required value');
});

test("the kubelet client signer refuses a request that is not a node's with a Failed condition; discovery and explain know csr", async () => {
  const { csr } = await certificateRequest('erin', '/O=team-a/CN=erin');
  expect((await kubectl(['create', '-f', '-'], csrManifest('erin', csr, 'kubernetes.io/kube-apiserver-client-kubelet'))).stderr).toBe('');
  expect((await kubectl(['certificate', 'approve', 'erin'])).code).toBe(0);
  const failed = await eventually('erin fails', async () => {
    const got = JSON.parse((await kubectl(['get', 'csr', 'erin', '-o', 'json'])).stdout);
    return got.status.conditions?.find((c: { type: string }) => c.type === 'Failed');
  });
  expect(failed).toMatchObject({ status: 'True', reason: 'SignerValidationFailure', message: 'subject organization is not system:nodes' });
  expect((await kubectl(['get', 'csr', 'erin', '--no-headers'])).stdout).toMatch(/Approved,Failed\n/);

  const resources = await kubectl(['api-resources', '--api-group=certificates.k8s.io', '--no-headers']);
  expect(resources.stdout).toMatch(/^certificatesigningrequests\s+csr\s+certificates\.k8s\.io\/v1\s+false\s+CertificateSigningRequest\n$/);
  const explained = await kubectl(['explain', 'csr.spec.signerName']);
  expect(explained.stdout).toContain('FIELD: signerName <string>');
});
