import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { children, oidText, readTlv } from './der-reader';
import { subjectNames, type SubjectNames } from './x509-name';

/** A PKCS#10 certificate request (RFC 2986), as far as a signer needs it. */
export interface CertificateRequest {
  /** The subject Name, DER as the requester wrote it (copied into the certificate unchanged). */
  subject: Buffer;
  /** The subject's user and groups, read as the certificate signed from it will be authenticated. */
  names: SubjectNames;
  publicKey: KeyObject;
}

/** Signature algorithms a request may be signed with: OID → the digest node's verify takes (null: none, Ed25519). */
const SIGNATURE_DIGESTS: Record<string, string | null> = {
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** The DER of the first `CERTIFICATE REQUEST` PEM block, or null when there is none. */
export function certificateRequestDer(pem: string): Buffer | null {
  const match = /-----BEGIN CERTIFICATE REQUEST-----([\s\S]*?)-----END CERTIFICATE REQUEST-----/.exec(pem);
  return match ? Buffer.from(match[1].replace(/\s+/g, ''), 'base64') : null;
}

/** Parses a request; throws when it is malformed. */
export function parseCertificateRequest(der: Buffer): CertificateRequest {
  const [info, algorithm, signature] = children(readTlv(der).content);
  if (!info || !algorithm || !signature || info.tag !== 0x30) throw new Error('malformed certificate request');
  const [, subject, spki] = children(info.content);
  if (!subject || !spki || subject.tag !== 0x30 || spki.tag !== 0x30) throw new Error('malformed certificate request');
  return { subject: subject.raw, names: subjectNames(subject.raw, 'skip'), publicKey: createPublicKey({ key: spki.raw, format: 'der', type: 'spki' }) };
}

/** Whether the request is signed by the key it carries (x509.CertificateRequest.CheckSignature). */
export function requestSignatureValid(der: Buffer): boolean {
  const [info, algorithm, signature] = children(readTlv(der).content);
  const oid = oidText(children(algorithm.content)[0].content);
  if (!(oid in SIGNATURE_DIGESTS) || signature.tag !== 0x03) return false;
  const { publicKey } = parseCertificateRequest(der);
  return verify(SIGNATURE_DIGESTS[oid], info.raw, publicKey, signature.content.subarray(1));
}
