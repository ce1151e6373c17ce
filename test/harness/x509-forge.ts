import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { bitString, boolean, explicit, objectIdentifier, octetString, sequence, set, time, tlv, unsignedInteger, utf8String } from '../../src/auth/der';

/**
 * Certificates and certificate requests as an attacker writes them: any subject encoding, any
 * issuer, CA or not, any extended key usages. Only tests use this.
 */

export const OID = { commonName: '2.5.4.3', organization: '2.5.4.10', clientAuth: '1.3.6.1.5.5.7.3.2', serverAuth: '1.3.6.1.5.5.7.3.1' };
const ECDSA_SHA256 = sequence(objectIdentifier('1.2.840.10045.4.3.2'));

/** ASN.1 string types a Name attribute may use. */
export const STRING = {
  utf8: (s: string) => utf8String(s),
  printable: (s: string) => tlv(0x13, Buffer.from(s, 'latin1')),
  t61: (s: string) => tlv(0x14, Buffer.from(s, 'latin1')),
  ia5: (s: string) => tlv(0x16, Buffer.from(s, 'latin1')),
  bmp: (s: string) => tlv(0x1e, Buffer.from(s, 'utf16le').swap16()),
  universal: (s: string) => tlv(0x1c, Buffer.concat([...s].map((c) => Buffer.from([0, 0, 0, c.charCodeAt(0)])))),
};

/** A Name of single-attribute RDNs, in order: [oid, encoded value]. */
export const nameOf = (...attributes: [string, Buffer][]): Buffer => sequence(...attributes.map(([oid, value]) => set(sequence(objectIdentifier(oid), value))));
export const cn = (s: string, encode = STRING.utf8): [string, Buffer] => [OID.commonName, encode(s)];
export const o = (s: string, encode = STRING.utf8): [string, Buffer] => [OID.organization, encode(s)];

export interface Key {
  privateKey: KeyObject;
  publicKey: KeyObject;
  pem: string;
}

export function newKey(): Key {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey, pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

const pem = (label: string, der: Buffer): string =>
  `-----BEGIN ${label}-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END ${label}-----\n`;

export interface ForgedCertificate {
  subject: Buffer;
  issuer: Buffer;
  key: Key;
  /** The key that signs it (the issuer's); its own for a self-signed one. */
  signingKey: KeyObject;
  ca?: boolean;
  /** Extended key usages; none written when absent. */
  usages?: string[];
}

/** A certificate valid from an hour ago for a day, as PEM. */
export function forgeCertificate(spec: ForgedCertificate): string {
  const keyUsage = spec.ca ? bitString(Buffer.from([0b0000_0110]), 1) : bitString(Buffer.from([0b1010_0000]), 5);
  const extension = (oid: string, critical: boolean, value: Buffer) =>
    sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
  const extensions = [
    extension('2.5.29.15', true, keyUsage),
    extension('2.5.29.19', true, spec.ca ? sequence(boolean(true)) : sequence()),
    ...(spec.usages ? [extension('2.5.29.37', false, sequence(...spec.usages.map(objectIdentifier)))] : []),
  ];
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    ECDSA_SHA256,
    spec.issuer,
    sequence(time(new Date(Date.now() - 3600_000)), time(new Date(Date.now() + 86_400_000))),
    spec.subject,
    spec.key.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions)),
  );
  return pem('CERTIFICATE', sequence(tbs, ECDSA_SHA256, bitString(sign('sha256', tbs, spec.signingKey))));
}

/** A PKCS#10 request for `subject`, signed by `key`, as PEM. */
export function forgeCertificateRequest(subject: Buffer, key: Key): string {
  const info = sequence(unsignedInteger(Buffer.from([0])), subject, key.publicKey.export({ type: 'spki', format: 'der' }), tlv(0xa0, Buffer.alloc(0)));
  return pem('CERTIFICATE REQUEST', sequence(info, ECDSA_SHA256, bitString(sign('sha256', info, key.privateKey))));
}
