import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority, createLeafCertificate } from './certificates';
import { poolOf, verifyClientChain } from './client-chain';
import type { HandshakePeer } from './handshake-peer';

const ca = createCertificateAuthority('kubernetes');
const other = createCertificateAuthority('front-proxy-ca');
const peerOf = (pem: string): HandshakePeer => ({ leaf: new X509Certificate(pem), intermediates: [], authorized: true, authorizationError: '' });

test('a client certificate verifies against the pool of its own CA only, and only within its validity', () => {
  const peer = peerOf(createLeafCertificate(ca, { commonName: 'alice', usage: 'client', validDays: 1 }).cert);
  expect(verifyClientChain(peer, poolOf(ca.cert))).toHaveProperty('until');
  expect(verifyClientChain(peer, poolOf(other.cert))).toEqual({ error: 'x509: certificate signed by unknown authority' });
  expect(verifyClientChain(peer, poolOf(`${other.cert}${ca.cert}`))).toHaveProperty('until');
  expect(verifyClientChain(peer, poolOf(ca.cert), new Date(Date.now() + 3 * 86_400_000))).toEqual({
    error: 'x509: certificate has expired or is not yet valid',
  });
});

test('a serving certificate is no client certificate', () => {
  const peer = peerOf(createLeafCertificate(ca, { commonName: 'alice', usage: 'server', validDays: 1 }).cert);
  expect(verifyClientChain(peer, poolOf(ca.cert))).toEqual({ error: 'x509: certificate specifies an incompatible key usage' });
});
