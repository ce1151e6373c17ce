import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { bitString, boolean, explicit, implicit, objectIdentifier, octetString, sequence, set, time, unsignedInteger, utf8String } from './der';

/** Certificates kapi makes for itself (RFC 5280, ECDSA P-256 with SHA-256): a CA, serving and client certificates, as PEM. */

export interface PemPair {
  cert: string;
  key: string;
}

export interface LeafRequest {
  /** The subject: one common name, any organizations (kube reads them as user and groups). */
  commonName: string;
  organizations?: string[];
  usage: 'server' | 'client';
  /** Host names and IP addresses a serving certificate is valid for. */
  hosts?: string[];
  validDays: number;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};
const DAY_MS = 24 * 3600 * 1000;
/** keyUsage bits, first bit first: digitalSignature(0), keyEncipherment(2), keyCertSign(5), cRLSign(6). */
const LEAF_USAGE = bitString(Buffer.from([0b1010_0000]), 5);
const CA_USAGE = bitString(Buffer.from([0b1000_0110]), 1);

interface Subject {
  commonName: string;
  organizations?: string[];
}

function name({ commonName, organizations = [] }: Subject): Buffer {
  const rdn = (oid: string, value: string) => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(...organizations.map((o) => rdn(OID.organization, o)), rdn(OID.commonName, commonName));
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** RFC 5280's method 1: the SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // For an uncompressed P-256 point, the BIT STRING's content is the last 65 bytes of the SPKI.
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function subjectAltName(hosts: string[]): Buffer {
  const names = hosts.map((host) => {
    if (isIP(host) === 4) return implicit(7, Buffer.from(host.split('.').map(Number)));
    if (isIP(host) === 6) return implicit(7, ipv6Bytes(host));
    return implicit(2, Buffer.from(host, 'ascii'));
  });
  return sequence(...names);
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const parts = (s: string) => (s ? s.split(':') : []);
  const groups = [...parts(head), ...Array(8 - parts(head).length - parts(tail).length).fill('0'), ...parts(tail)];
  return Buffer.concat(groups.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

interface CertificateSpec {
  /** A subject to encode, or a Name already in DER (a certificate request's). */
  subject: Subject | Buffer;
  issuer: Subject;
  publicKey: KeyObject;
  signingKey: KeyObject;
  validDays: number;
  extensions: Buffer[];
}

function certificate(spec: CertificateSpec): string {
  const now = Date.now();
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    algorithm,
    name(spec.issuer),
    // An hour back, so clocks a little behind accept a certificate made now (as client-go's cert helpers do).
    sequence(time(new Date(now - 3600 * 1000)), time(new Date(now + spec.validDays * DAY_MS))),
    Buffer.isBuffer(spec.subject) ? spec.subject : name(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...spec.extensions)),
  );
  const der = sequence(tbs, algorithm, bitString(sign('sha256', tbs, spec.signingKey)));
  return `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

function newKey(): { privateKey: KeyObject; publicKey: KeyObject; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey, pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** A self-signed certificate authority (as kubeadm's `kubernetes` CA: ten years, signing certificates only). */
export function createCertificateAuthority(commonName: string, validDays = 3650): PemPair {
  const key = newKey();
  const subject = { commonName };
  const cert = certificate({
    subject,
    issuer: subject,
    publicKey: key.publicKey,
    signingKey: key.privateKey,
    validDays,
    extensions: [
      extension(OID.keyUsage, true, CA_USAGE),
      extension(OID.basicConstraints, true, sequence(boolean(true))),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(key.publicKey))),
    ],
  });
  return { cert, key: key.pem };
}

/** A certificate for a server or a client, signed by `ca`. */
export function createLeafCertificate(ca: PemPair, request: LeafRequest): PemPair {
  const key = newKey();
  const caCert = new X509Certificate(ca.cert);
  const extensions = [
    extension(OID.keyUsage, true, LEAF_USAGE),
    extension(OID.extKeyUsage, false, sequence(objectIdentifier(request.usage === 'server' ? OID.serverAuth : OID.clientAuth))),
    extension(OID.basicConstraints, true, sequence()),
    extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, keyIdentifier(caCert.publicKey)))),
  ];
  if (request.hosts && request.hosts.length > 0) extensions.push(extension(OID.subjectAltName, false, subjectAltName(request.hosts)));
  const cert = certificate({
    subject: { commonName: request.commonName, organizations: request.organizations },
    issuer: { commonName: caSubjectCommonName(caCert) },
    publicKey: key.publicKey,
    signingKey: createPrivateKey(ca.key),
    validDays: request.validDays,
    extensions,
  });
  return { cert, key: key.pem };
}

/**
 * A client certificate for a requested subject and public key (a CSR's), signed by `ca`, as
 * kube's kube-apiserver-client signers issue: digital signature and key encipherment, client auth.
 */
export function signClientCertificate(ca: PemPair, subject: Buffer, publicKey: KeyObject, validSeconds: number): string {
  const caCert = new X509Certificate(ca.cert);
  return certificate({
    subject,
    issuer: { commonName: caSubjectCommonName(caCert) },
    publicKey,
    signingKey: createPrivateKey(ca.key),
    validDays: validSeconds / (24 * 3600),
    extensions: [
      extension(OID.keyUsage, true, LEAF_USAGE),
      extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.clientAuth))),
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, keyIdentifier(caCert.publicKey)))),
    ],
  });
}

/** The CN of a CA kapi made (its subject is the CN alone). */
function caSubjectCommonName(cert: X509Certificate): string {
  return /^CN=(.*)$/m.exec(cert.subject)?.[1] ?? '';
}

/** The host names and IP addresses a certificate names in its subjectAltName. */
export function subjectAltNames(pem: string): string[] {
  const san = new X509Certificate(pem).subjectAltName ?? '';
  return san
    .split(', ')
    .filter(Boolean)
    .map((entry) => entry.replace(/^(DNS|IP Address):/, ''))
    .map((value) => (isIP(value) === 6 ? shortIpv6(value) : value));
}

/** Node prints IPv6 SANs expanded and upper case (0:0:0:0:0:0:0:1); compare them in their short form. */
function shortIpv6(value: string): string {
  return new URL(`http://[${value}]`).hostname.slice(1, -1);
}
