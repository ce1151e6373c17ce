import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { certificateRequestDer, parseCertificateRequest, requestSignatureValid } from './certificate-request';
import { createCertificateAuthority, signClientCertificate } from './certificates';

function opensslRequest(keyType: string[], subject: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'csr-unit-'));
  try {
    execFileSync('openssl', ['req', '-new', '-newkey', ...keyType, '-nodes', '-keyout', path.join(dir, 'k'), '-out', path.join(dir, 'r'), '-subj', subject], {
      stdio: 'ignore',
    });
    return readFileSync(path.join(dir, 'r'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test.each([
  ['ECDSA P-256', ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256']],
  ['RSA 2048', ['rsa:2048']],
])('a %s request is parsed, its signature checked, and signed into a client certificate naming its subject', (_name, keyType) => {
  const der = certificateRequestDer(opensslRequest(keyType, '/O=system:nodes/O=ops/CN=system:node:n1'))!;
  expect(requestSignatureValid(der)).toBe(true);
  const request = parseCertificateRequest(der);
  expect(request.names).toEqual({ commonName: 'system:node:n1', organizations: ['system:nodes', 'ops'] });
  const ca = createCertificateAuthority('kubernetes');
  const cert = new X509Certificate(signClientCertificate(ca, request.subject, request.publicKey, 3600));
  expect(cert.subject).toBe('O=system:nodes\nO=ops\nCN=system:node:n1');
  expect(cert.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
  expect(cert.publicKey.export({ type: 'spki', format: 'der' })).toEqual(request.publicKey.export({ type: 'spki', format: 'der' }));
  const lifetime = Date.parse(cert.validTo) - Date.now();
  expect(lifetime).toBeGreaterThan(3500_000);
  expect(lifetime).toBeLessThan(3700_000);
});

test('a request whose signature does not match its key is refused; no PEM block is null', () => {
  const der = Buffer.from(certificateRequestDer(opensslRequest(['ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], '/CN=x'))!);
  der[der.length - 5] ^= 0xff;
  expect(requestSignatureValid(der)).toBe(false);
  expect(certificateRequestDer('-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----')).toBeNull();
});
