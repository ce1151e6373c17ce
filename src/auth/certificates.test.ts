import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createCertificateAuthority, createLeafCertificate, subjectAltNames } from './certificates';

const ca = createCertificateAuthority('kubernetes');

describe('certificates', () => {
  test('a self-signed CA that openssl-compatible parsers read as a CA', () => {
    const cert = new X509Certificate(ca.cert);
    expect(cert.subject).toBe('CN=kubernetes');
    expect(cert.ca).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(new Date(cert.validTo).getTime() - Date.now()).toBeGreaterThan(9 * 365 * 24 * 3600 * 1000);
  });

  test('a serving certificate signed by the CA, valid for its host names and addresses', () => {
    const serving = createLeafCertificate(ca, {
      commonName: 'kube-apiserver',
      usage: 'server',
      hosts: ['localhost', '127.0.0.1', '::1', 'kubernetes.default.svc'],
      validDays: 365,
    });
    const cert = new X509Certificate(serving.cert);
    expect(cert.checkIssued(new X509Certificate(ca.cert))).toBe(true);
    expect(cert.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkHost('kubernetes.default.svc')).toBe('kubernetes.default.svc');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.checkHost('example.com')).toBeUndefined();
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(subjectAltNames(serving.cert)).toEqual(['localhost', '127.0.0.1', '::1', 'kubernetes.default.svc']);
  });

  test('a client certificate: CN and O as kube reads user and groups, for client authentication', () => {
    const client = createLeafCertificate(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters', 'dev'], usage: 'client', validDays: 365 });
    const cert = new X509Certificate(client.cert);
    expect(cert.subject.split('\n').sort()).toEqual(['CN=kubernetes-admin', 'O=dev', 'O=system:masters']);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.checkPrivateKey(createPrivateKey(client.key))).toBe(true);
  });
});
