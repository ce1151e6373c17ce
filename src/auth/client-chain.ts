import { X509Certificate } from 'node:crypto';
import type { HandshakePeer } from './handshake-peer';

const CLIENT_AUTH_EKU = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';
/** Go's x509 gives up on chains longer than this (maxChainSignatureChecks aside). */
const MAX_DEPTH = 8;

/** The PEM certificates of a bundle. */
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export type CertificatePool = readonly X509Certificate[];

export const poolOf = (pem: string): CertificatePool => (pem.match(PEM_CERTIFICATE) ?? []).map((c) => new X509Certificate(c));

const within = (cert: X509Certificate, now: Date): boolean => now >= new Date(cert.validFrom) && now <= new Date(cert.validTo);
const signedBy = (cert: X509Certificate, issuer: X509Certificate): boolean => cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
/** A certificate without extended key usages allows every usage, as Go's checkChainForKeyUsage reads it. */
const allowsClientAuth = (cert: X509Certificate): boolean => !cert.keyUsage || cert.keyUsage.includes(CLIENT_AUTH_EKU) || cert.keyUsage.includes(ANY_EKU);

/** Every chain from `cert` to one of the roots, through the intermediates (which must be valid CAs). */
function chainsOf(cert: X509Certificate, intermediates: CertificatePool, roots: CertificatePool, now: Date, path: X509Certificate[]): X509Certificate[][] {
  if (path.length > MAX_DEPTH) return [];
  const chains: X509Certificate[][] = [];
  for (const root of roots) if (root.ca && within(root, now) && signedBy(cert, root)) chains.push([...path, cert, root]);
  for (const next of intermediates) {
    if (path.includes(next) || next === cert || !next.ca || !within(next, now) || !signedBy(cert, next)) continue;
    chains.push(...chainsOf(next, intermediates, roots, now, [...path, cert]));
  }
  return chains;
}

/** A verified chain holds until the first of its certificates expires; a failure is Go's error text. */
export type ChainVerification = { until: Date } | { error: string };

/**
 * x509.Certificate.Verify with {Roots, Intermediates: what the client sent, KeyUsages: ClientAuth},
 * as kube's x509 and requestheader authenticators verify a client certificate, each against its
 * own pool.
 */
export function verifyClientChain(peer: HandshakePeer, roots: CertificatePool, now = new Date()): ChainVerification {
  if (!within(peer.leaf, now)) return { error: 'x509: certificate has expired or is not yet valid' };
  const chains = chainsOf(peer.leaf, peer.intermediates, roots, now, []);
  if (chains.length === 0) return { error: 'x509: certificate signed by unknown authority' };
  const usable = chains.find((chain) => chain.every(allowsClientAuth));
  if (!usable) return { error: 'x509: certificate specifies an incompatible key usage' };
  return { until: new Date(Math.min(...usable.map((c) => Date.parse(c.validTo)))) };
}

/**
 * verifyClientChain against the roots of the moment (they follow the CA file), remembered per
 * connection while its chain is valid and the roots unchanged, so a kept-alive client pays the
 * signature checks once; a failure is checked again at each request, as Go does.
 */
export function connectionVerifier(roots: () => CertificatePool): (peer: HandshakePeer) => ChainVerification {
  const verified = new WeakMap<HandshakePeer, { until: Date; roots: CertificatePool }>();
  return (peer) => {
    const now = new Date();
    const pool = roots();
    const known = verified.get(peer);
    if (known && known.roots === pool && now <= known.until) return known;
    const result = verifyClientChain(peer, pool, now);
    if ('until' in result) verified.set(peer, { ...result, roots: pool });
    return result;
  };
}
