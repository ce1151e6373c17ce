import { children, oidText, readTlv, type Tlv } from './der-reader';

/** The user and groups a subject Name holds, as Go's pkix.Name.FillFromRDNSequence reads them. */
export interface SubjectNames {
  /** The last common name (each CN overwrites the one before it). */
  commonName: string;
  /** Every organization, in order. */
  organizations: string[];
}

/**
 * How a value of a string type Go cannot read is treated: a request's subject goes through
 * encoding/asn1, which leaves such a value nil (so it names nobody); a certificate's through
 * crypto/x509's parser, which refuses the whole certificate.
 */
export type UnknownStringTypes = 'skip' | 'reject';

const TAG = { utf8: 0x0c, numeric: 0x12, printable: 0x13, t61: 0x14, ia5: 0x16, bmp: 0x1e } as const;
const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';

/** PrintableString's alphabet, with '*' and '&' that Go accepts because certificates in the wild use them. */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?*&]*$/;

/** BMPString: UTF-16 big-endian, a trailing NUL dropped, as Go's parseBMPString. */
function bmpString(bytes: Buffer): string {
  if (bytes.length % 2 !== 0) throw new Error('invalid BMPString');
  const units = bytes.length >= 2 && bytes[bytes.length - 1] === 0 && bytes[bytes.length - 2] === 0 ? bytes.subarray(0, -2) : bytes;
  return Buffer.from(units).swap16().toString('utf16le');
}

/** A string attribute value as Go decodes it; null when Go has no string for its type. */
function stringValue(value: Tlv): string | null {
  const bytes = value.content;
  switch (value.tag) {
    case TAG.utf8: {
      const text = bytes.toString('utf8');
      if (!Buffer.from(text, 'utf8').equals(bytes)) throw new Error('asn1: invalid UTF-8 string');
      return text;
    }
    case TAG.printable: {
      const text = bytes.toString('latin1');
      if (!PRINTABLE.test(text)) throw new Error('asn1: syntax error: PrintableString contains invalid character');
      return text;
    }
    case TAG.ia5: {
      if (bytes.some((b) => b >= 0x80)) throw new Error('asn1: syntax error: IA5String contains invalid character');
      return bytes.toString('latin1');
    }
    case TAG.numeric: {
      const text = bytes.toString('latin1');
      if (!/^[0-9 ]*$/.test(text)) throw new Error('asn1: syntax error: NumericString contains invalid character');
      return text;
    }
    // Go keeps a T61String's bytes as they are.
    case TAG.t61:
      return bytes.toString('utf8');
    case TAG.bmp:
      return bmpString(bytes);
    default:
      return null;
  }
}

/**
 * The common name and organizations of a DER Name, read exactly as Go reads them: every string
 * type Go decodes (UTF8, Printable, IA5, Numeric, T61, BMP), the last CN, every O. A CSR and the
 * certificate signed from it are both read here, so what admission and the signers judge is what
 * the x509 authenticator later authenticates.
 */
export function subjectNames(name: Buffer, unknown: UnknownStringTypes): SubjectNames {
  let commonName = '';
  const organizations: string[] = [];
  const sequence = readTlv(name);
  if (sequence.tag !== 0x30) throw new Error('x509: invalid RDNSequence');
  for (const rdn of children(sequence.content)) {
    if (rdn.tag !== 0x31) throw new Error('x509: invalid RDNSequence');
    for (const attribute of children(rdn.content)) {
      const [type, value] = attribute.tag === 0x30 ? children(attribute.content) : [];
      if (!type || !value || type.tag !== 0x06) throw new Error('x509: invalid RDNSequence: invalid attribute');
      const text = stringValue(value);
      if (text === null) {
        if (unknown === 'reject') throw new Error(`x509: invalid RDNSequence: invalid attribute value: unsupported string type: ${value.tag}`);
        continue;
      }
      const oid = oidText(type.content);
      if (oid === COMMON_NAME) commonName = text;
      else if (oid === ORGANIZATION) organizations.push(text);
    }
  }
  return { commonName, organizations };
}

/** The subject Name of a DER certificate (the sixth field of its TBSCertificate, after the optional version). */
export function certificateSubject(der: Buffer): Buffer {
  const [tbs] = children(readTlv(der).content);
  if (!tbs || tbs.tag !== 0x30) throw new Error('x509: malformed certificate');
  const fields = children(tbs.content);
  const rest = fields[0]?.tag === 0xa0 ? fields.slice(1) : fields;
  // serialNumber, signature, issuer, validity, subject
  const subject = rest[4];
  if (!subject || subject.tag !== 0x30) throw new Error('x509: malformed certificate');
  return subject.raw;
}
