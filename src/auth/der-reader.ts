/** Reads DER (X.690) TLVs: enough to take a PKCS#10 certificate request apart. */

export interface Tlv {
  tag: number;
  /** The whole encoding, tag and length included. */
  raw: Buffer;
  content: Buffer;
}

/** The TLV at the start of `buf`; throws on a truncated or indefinite-length encoding. */
export function readTlv(buf: Buffer): Tlv {
  if (buf.length < 2) throw new Error('truncated DER');
  const tag = buf[0];
  let len = buf[1];
  let header = 2;
  if (len & 0x80) {
    const count = len & 0x7f;
    if (count === 0 || count > 4 || buf.length < 2 + count) throw new Error('unsupported DER length');
    len = 0;
    for (let i = 0; i < count; i++) len = len * 256 + buf[2 + i];
    header += count;
  }
  if (buf.length < header + len) throw new Error('truncated DER');
  return { tag, raw: buf.subarray(0, header + len), content: buf.subarray(header, header + len) };
}

/** The TLVs a constructed value holds, in order. */
export function children(content: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let rest = content; rest.length > 0;) {
    const item = readTlv(rest);
    out.push(item);
    rest = rest.subarray(item.raw.length);
  }
  return out;
}

/** An OBJECT IDENTIFIER's dotted form. */
export function oidText(content: Buffer): string {
  const arcs = [Math.floor(content[0] / 40), content[0] % 40];
  let value = 0;
  for (const byte of content.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  return arcs.join('.');
}
