import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCertificateAuthority, createLeafCertificate } from '../auth/certificates';
import { DynamicCertificates, type CertificateContent } from './dynamic-certificates';

const dir = mkdtempSync(path.join(tmpdir(), 'kapi-dynamic-certs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);

const ca = [createCertificateAuthority('ca-1'), createCertificateAuthority('ca-2')];
const serving = ca.map((c) => createLeafCertificate(c, { commonName: 'kapi', usage: 'server', hosts: ['127.0.0.1'], validDays: 1 }));

test('check() takes a complete pair and a non-empty CA bundle, keeps the last good content otherwise, and tells its listeners once per change', () => {
  writeFileSync(file('tls.crt'), serving[0].cert);
  writeFileSync(file('tls.key'), serving[0].key);
  writeFileSync(file('ca.crt'), ca[0].cert);
  const logged: string[] = [];
  const initial: CertificateContent = { serving: serving[0], clientCa: ca[0].cert, requestHeaderCa: ca[1].cert };
  const certs = new DynamicCertificates(
    initial,
    { serving: { cert: file('tls.crt'), key: file('tls.key') }, clientCa: file('ca.crt'), requestHeaderCa: '' },
    (m) => logged.push(m),
  );
  const seen: CertificateContent[] = [];
  certs.onChange((c) => seen.push(c));
  const firstPool = certs.clientCaPool();

  certs.check();
  expect(seen).toEqual([]);

  writeFileSync(file('tls.crt'), serving[1].cert);
  writeFileSync(file('ca.crt'), '');
  certs.check();
  expect(certs.current()).toBe(initial);
  expect(logged).toEqual([
    expect.stringMatching(/^serving-cert::.*tls\.crt::.*tls\.key failed with: .+; keeping the content loaded before$/),
    expect.stringMatching(/^client-ca-bundle::.*ca\.crt failed with: missing content for CA bundle/),
  ]);

  writeFileSync(file('tls.key'), serving[1].key);
  writeFileSync(file('ca.crt'), ca[1].cert);
  certs.check();
  expect(seen).toEqual([{ serving: serving[1], clientCa: ca[1].cert, requestHeaderCa: ca[1].cert }]);
  expect(certs.clientCaPool()).not.toBe(firstPool);
  expect(certs.clientCaPool().map((c) => c.subject)).toEqual(['CN=ca-2']);
  certs.check();
  expect(seen).toHaveLength(1);
});
