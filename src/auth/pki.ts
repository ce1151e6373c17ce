import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createCertificateAuthority, createLeafCertificate, subjectAltNames, type PemPair } from './certificates';
import { writeFileAtomically } from './pki-files';

/** The files kapi generates into --cert-dir on first start and reuses after. */
export const PKI_FILES = { caCert: 'ca.crt', caKey: 'ca.key', servingCert: 'apiserver.crt', servingKey: 'apiserver.key' } as const;

function readPair(certFile: string, keyFile: string): PemPair | null {
  if (!existsSync(certFile) || !existsSync(keyFile)) return null;
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

function writePair(pair: PemPair, certFile: string, keyFile: string): void {
  // The key first: a reader that finds the certificate also finds its key.
  writeFileAtomically(keyFile, pair.key, 0o600);
  writeFileAtomically(certFile, pair.cert, 0o644);
}

/** The cluster CA in `certDir` (ca.crt, ca.key), created when absent; it signs serving and client certificates. */
export function ensureCertificateAuthority(certDir: string): PemPair {
  const certFile = path.join(certDir, PKI_FILES.caCert);
  const keyFile = path.join(certDir, PKI_FILES.caKey);
  const existing = readPair(certFile, keyFile);
  if (existing) return existing;
  const ca = createCertificateAuthority('kubernetes');
  writePair(ca, certFile, keyFile);
  return ca;
}

/**
 * The serving certificate in `certDir` (apiserver.crt, apiserver.key), signed by `ca`: reused
 * while it names every host asked for, made again (say, for a new --advertise-address) when not.
 */
export function ensureServingCertificate(certDir: string, ca: PemPair, hosts: string[]): PemPair {
  const certFile = path.join(certDir, PKI_FILES.servingCert);
  const keyFile = path.join(certDir, PKI_FILES.servingKey);
  const existing = readPair(certFile, keyFile);
  if (existing) {
    const names = new Set(subjectAltNames(existing.cert));
    if (hosts.every((h) => names.has(h))) return existing;
  }
  const serving = createLeafCertificate(ca, { commonName: 'kube-apiserver', usage: 'server', hosts, validDays: 365 });
  writePair(serving, certFile, keyFile);
  return serving;
}
