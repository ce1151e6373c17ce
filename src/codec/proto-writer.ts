/**
 * Protobuf bytes written front to back into one growing Buffer, the one the encoders share. Go's
 * generated marshallers (MarshalToSizedBuffer) size every message first and write back to front;
 * here a length-delimited field reserves one byte for its length and, when its content turns out
 * to be 128 bytes or longer, moves that content up by the bytes the longer length needs. Most
 * fields of an object are short, so most lengths cost one byte store and nothing else.
 */

const INITIAL_SIZE = 64 * 1024;
/** A shared buffer grown past this (by one huge object) is let go after its encoding. */
const KEPT_SIZE = 1024 * 1024;
/** Strings shorter than this are written by a loop over their chars: cheaper than a call into Buffer.write. */
const SHORT_STRING = 32;

/** The bytes a varint of `n` (0 ≤ n < 2^53) takes. */
export function varintLength(n: number): number {
  let length = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    length++;
  }
  return length;
}

/** Writes `n` (0 ≤ n < 2^53) as a varint at `at`; returns the index after it. */
export function writeVarintAt(buf: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[at++] = n;
  return at;
}

export class ProtoWriter {
  buf = Buffer.allocUnsafe(INITIAL_SIZE);
  pos = 0;

  /** Room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
      this.buf.copy(next, 0, 0, this.pos);
      this.buf = next;
    }
  }

  /** A tag, a length or any value below 2^32. */
  uint32(n: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (n > 0x7f) {
      buf[pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /**
   * An int32 or int64 field's value: a negative number as its 64-bit two's complement (ten bytes,
   * as Go's encodeVarintGenerated writes uint64(v)); fractions truncated, NaN and ±Infinity as 0.
   */
  int64(n: number): void {
    if (n >= 0 && n < 0x80000000) {
      this.uint32(n >>> 0);
      return;
    }
    const magnitude = n < 0 ? -n : n;
    let lo = magnitude >>> 0;
    let hi = ((magnitude - lo) / 0x100000000) >>> 0;
    if (n < 0) {
      lo = ~lo >>> 0;
      hi = ~hi >>> 0;
      if (lo === 0xffffffff) {
        lo = 0;
        hi = (hi + 1) >>> 0;
      } else lo++;
    }
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (hi !== 0) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 0x7f) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  bool(value: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
  }

  /**
   * A string with its length, in UTF-8; a lone surrogate becomes U+FFFD, as Go's encoding/json
   * decodes one (Go strings hold no UTF-16) and so as the object Go would write holds it.
   */
  string(s: string): void {
    const n = s.length;
    if (n < SHORT_STRING) {
      this.ensure(1 + n);
      const buf = this.buf;
      const start = this.pos + 1;
      let pos = start;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          pos = -1;
          break;
        }
        buf[pos++] = c;
      }
      if (pos >= 0) {
        buf[start - 1] = n;
        this.pos = pos;
        return;
      }
    }
    const start = this.begin();
    this.ensure(3 * n);
    this.pos += this.buf.write(s, start);
    this.end(start);
  }

  /** A bytes field's value from its JSON form, base64, with its length. */
  base64(s: string): void {
    const start = this.begin();
    this.ensure(Buffer.byteLength(s, 'base64'));
    this.pos += this.buf.write(s, start, 'base64');
    this.end(start);
  }

  /** Bytes with their length. */
  bytes(b: Uint8Array): void {
    this.uint32(b.length);
    this.raw(b);
  }

  /** Bytes as they are. */
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Opens a length-delimited field (its tag written): returns where its content starts, for end. */
  begin(): number {
    this.ensure(1);
    return ++this.pos;
  }

  /** Closes the field `begin` opened: its length in the reserved byte, its content moved up if it needs more. */
  end(start: number): void {
    const length = this.pos - start;
    if (length < 0x80) {
      this.buf[start - 1] = length;
      return;
    }
    const extra = varintLength(length) - 1;
    this.ensure(extra);
    this.buf.copyWithin(start + extra, start, this.pos);
    this.pos += extra;
    writeVarintAt(this.buf, start - 1, length);
  }
}

const shared = new ProtoWriter();
let writing = false;

/**
 * The bytes `write` writes, in a Buffer of their own. Every encoding writes into the one shared
 * writer and copies its bytes out: an allocation of the result's size, not a new writer's buffer
 * per encoding. Encodings do not nest (each runs to its end synchronously).
 */
export function encodeWith(write: (w: ProtoWriter) => void): Buffer {
  if (writing) throw new Error('encodeWith: an encoding is already under way');
  writing = true;
  shared.pos = 0;
  try {
    write(shared);
    const out = Buffer.allocUnsafe(shared.pos);
    shared.buf.copy(out, 0, 0, shared.pos);
    return out;
  } finally {
    writing = false;
    if (shared.buf.length > KEPT_SIZE) shared.buf = Buffer.allocUnsafe(INITIAL_SIZE);
  }
}
