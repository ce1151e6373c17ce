import { Decoder, Tag } from 'cbor-x';
import type { Field, Type } from 'protobufjs';
import { setOwn } from '../api/types';
import { runWalkInSlices, type Walk } from '../api/loop-slices';
import { DecodeError } from './decode-error';
import { MAX_NESTING_DEPTH } from './json';
import { isInlineField } from '../schema/proto-loader';
import { childOf, isContainer, keysOf, LARGE, markPieces, smallInOneGo, type Container } from './large-values';

/**
 * CBOR as kube-apiserver writes it (apimachinery's serializer, fxamacker/cbor in its modes):
 * every data item enclosed in the self-described CBOR tag (d9 d9 f7); strings, map keys included,
 * as byte strings; []byte fields (Secret data, ConfigMap binaryData) as byte strings in tag 22
 * ("expected base64"); integers in their shortest head; other numbers as the shortest float
 * that keeps the value; definite lengths; map entries in the object's own field order (the
 * serving encoder does not sort).
 */

export const SELF_DESCRIBED_CBOR = Buffer.from([0xd9, 0xd9, 0xf7]);

class Out {
  private buf = Buffer.allocUnsafe(1024);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  /** A head: major type and argument in the shortest form. */
  head(major: number, n: number): void {
    this.room(9);
    const m = major << 5;
    if (n < 24) this.buf[this.length++] = m | n;
    else if (n < 0x100) {
      this.buf[this.length++] = m | 24;
      this.buf[this.length++] = n;
    } else if (n < 0x10000) {
      this.buf[this.length++] = m | 25;
      this.buf.writeUInt16BE(n, this.length);
      this.length += 2;
    } else if (n < 0x100000000) {
      this.buf[this.length++] = m | 26;
      this.buf.writeUInt32BE(n, this.length);
      this.length += 4;
    } else {
      this.buf[this.length++] = m | 27;
      this.buf.writeBigUInt64BE(BigInt(n), this.length);
      this.length += 8;
    }
  }

  float(v: number): void {
    this.room(9);
    const half = toHalf(v);
    if (half !== null) {
      this.buf[this.length++] = 0xf9;
      this.buf.writeUInt16BE(half, this.length);
      this.length += 2;
    } else if (Math.fround(v) === v) {
      this.buf[this.length++] = 0xfa;
      this.buf.writeFloatBE(v, this.length);
      this.length += 4;
    } else {
      this.buf[this.length++] = 0xfb;
      this.buf.writeDoubleBE(v, this.length);
      this.length += 8;
    }
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/** The IEEE 754 half-precision bits of v when it holds v exactly; else null. */
function toHalf(v: number): number | null {
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const exp = Math.floor(Math.log2(a));
  if (exp > 15 || exp < -24) return null;
  if (exp >= -14) {
    const mant = a / 2 ** exp - 1;
    const bits = mant * 1024;
    if (!Number.isInteger(bits)) return null;
    return sign | ((exp + 15) << 10) | bits;
  }
  const bits = a / 2 ** -24;
  return Number.isInteger(bits) ? sign | bits : null;
}

function text(out: Out, s: string): void {
  const b = Buffer.from(s, 'utf8');
  out.head(2, b.length);
  out.bytes(b);
}

function bytesField(out: Out, value: unknown): void {
  const b = typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  out.head(6, 22);
  out.head(2, b.length);
  out.bytes(b);
}

function fieldOf(type: Type | null, key: string): Field | null {
  return type ? (type.fields[key] ?? null) : null;
}

/** The message type of a field whose value is an object of fields (not Time, Quantity and their kind). */
function messageTypeOf(field: Field | null): Type | null {
  const t = field?.resolvedType as Type | null | undefined;
  return t && 'fieldsArray' in t ? t : null;
}

/** The type that describes the keys of an object: its own, merged with the types it inlines. */
function keyOwner(type: Type | null, key: string): Type | null {
  if (!type || type.fields[key]) return type;
  for (const f of type.fieldsArray) {
    if (isInlineField(type, f)) {
      const owner = keyOwner(f.resolvedType as Type, key);
      if (owner) return owner;
    }
  }
  return null;
}

function value(out: Out, v: unknown, type: Type | null, field: Field | null): void {
  if (v === null || v === undefined) {
    out.head(7, 22);
  } else if (typeof v === 'string') {
    if (field?.type === 'bytes' && !field.map) bytesField(out, v);
    else text(out, v);
  } else if (typeof v === 'boolean') {
    out.head(7, v ? 21 : 20);
  } else if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) {
      if (v >= 0) out.head(0, v);
      else out.head(1, -1 - v);
    } else out.float(v);
  } else if (Array.isArray(v)) {
    out.head(4, v.length);
    for (const item of v) value(out, item, type, field);
  } else if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    out.head(5, entries.length);
    const isMap = field?.map === true;
    const inner = isMap ? messageTypeOf(field) : type;
    for (const [k, x] of entries) {
      text(out, k);
      if (isMap) {
        if (field!.type === 'bytes') bytesField(out, x);
        else value(out, x, inner, null);
        continue;
      }
      const owner = keyOwner(inner, k);
      const f = fieldOf(owner, k);
      value(out, x, messageTypeOf(f), f);
    }
  }
}

/** Entries written between two yields of the walk. */
const ENTRIES_PER_YIELD = 64;

/**
 * `value` as a walk for a large object or list (a Deployment's 20,000 containers, a list's
 * items): what markPieces marked (the large lists and maps, and the containers on the way to one)
 * is written entry by entry with a yield every ENTRIES_PER_YIELD entries, the rest by `value` in
 * one go, so the bytes are `value`'s. An entry of a large container that holds large ones itself
 * (a list's item) is marked when it is reached, as markPieces does not look inside large ones.
 * Keys are read once per container: Object.entries of a 20,000-key map took 7-100 ms, and asking a
 * large map's size again at every level above it tens of ms.
 */
function* valueWalk(out: Out, v: unknown, type: Type | null, field: Field | null, walk: { marked: Set<Container>; n: number }): Walk<void> {
  if (!isContainer(v) || !walk.marked.has(v)) {
    value(out, v, type, field);
    return;
  }
  const keys = keysOf(v);
  const large = keys.length >= LARGE;
  const entry = function* (x: unknown, xType: Type | null, xField: Field | null): Walk<void> {
    if (large && isContainer(x) && !smallInOneGo(x)) yield* markPieces(x, walk.marked);
    yield* valueWalk(out, x, xType, xField, walk);
    if (++walk.n % ENTRIES_PER_YIELD === 0) yield;
  };
  if (Array.isArray(v)) {
    out.head(4, v.length);
    for (const item of v) yield* entry(item, type, field);
    return;
  }
  let defined = 0;
  for (const k of keys) if (childOf(v, k) !== undefined) defined++;
  out.head(5, defined);
  const isMap = field?.map === true;
  const inner = isMap ? messageTypeOf(field) : type;
  for (const k of keys as string[]) {
    const x = childOf(v, k);
    if (x === undefined) continue;
    text(out, k);
    if (isMap && field!.type === 'bytes') bytesField(out, x);
    else if (isMap) yield* entry(x, inner, null);
    else {
      const f = fieldOf(keyOwner(inner, k), k);
      yield* entry(x, messageTypeOf(f), f);
    }
  }
}

function* cborWalk(v: Container, type: Type | null): Walk<Buffer> {
  const marked = new Set<Container>();
  yield* markPieces(v, marked);
  const out = new Out();
  out.bytes(SELF_DESCRIBED_CBOR);
  yield* valueWalk(out, v, type, null, { marked, n: 0 });
  return out.finish();
}

/**
 * encodeCbor's bytes for a request, in slices between other requests when `v` holds a large list
 * or map (issue 25: a 20,000-container Deployment's CBOR was one piece of the event loop).
 */
export function encodeCborInSlices(v: unknown, type: Type | null, slice: () => Promise<void>): Promise<Buffer> {
  if (!isContainer(v) || smallInOneGo(v)) return Promise.resolve(encodeCbor(v, type));
  return runWalkInSlices(cborWalk(v, type), slice);
}

/** One data item, tagged self-described; `type` (the object's protobuf message) marks its byte fields. */
export function encodeCbor(v: unknown, type: Type | null = null): Buffer {
  const out = new Out();
  out.bytes(SELF_DESCRIBED_CBOR);
  value(out, v, type, null);
  return out.finish();
}

/** A watch event: {type, object}, the object embedded as its own complete CBOR data item. */
export function encodeCborWatchEvent(eventType: string, objectBody: Uint8Array): Buffer {
  const out = new Out();
  out.bytes(SELF_DESCRIBED_CBOR);
  out.head(5, 2);
  text(out, 'type');
  text(out, eventType);
  text(out, 'object');
  out.bytes(objectBody);
  return out.finish();
}

const decoder = new Decoder({ mapsAsObjects: false });

/**
 * Decoded CBOR to JSON's data model: byte strings to text, tag 22 byte strings to base64. cbor-x
 * honours shared references (tags 28 and 29), so one decoded item can sit at many places, or
 * inside itself: each is refused, which keeps the walk linear in the body.
 */
function toJson(v: unknown, seen: Set<object>, depth = 0): unknown {
  if (typeof v === 'object' && v !== null) {
    if (seen.has(v)) throw new DecodeError('cbor: shared references (tags 28 and 29) are not supported');
    seen.add(v);
    if (depth > MAX_NESTING_DEPTH) throw new DecodeError(`cbor: exceeded max nested level ${MAX_NESTING_DEPTH}`);
  }
  if (v instanceof Tag) {
    if (v.tag === 22 && v.value instanceof Uint8Array) return Buffer.from(v.value).toString('base64');
    return toJson(v.value, seen, depth);
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (typeof v === 'bigint') return int64Of(v);
  if (Array.isArray(v)) return v.map((x) => toJson(x, seen, depth + 1));
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) setOwn(out, k instanceof Uint8Array ? Buffer.from(k).toString('utf8') : String(k), toJson(x, seen, depth + 1));
    return out;
  }
  return v;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer with an eight-byte head, which cbor-x reads as a BigInt: kube's decoder reads it as
 * an int64 or fails (IntDecConvertSignedOrFail). Within int64 it becomes a number, as a JSON body's
 * integer does (docs/divergences.md: integers beyond 2^53).
 */
function int64Of(v: bigint): number {
  if (v < INT64_MIN || v > INT64_MAX) {
    const kind = v < 0n ? 'negative integer' : 'positive integer';
    throw new DecodeError(`cbor: cannot unmarshal ${kind} into Go value of type int64 (${v} overflows Go's int64)`);
  }
  return Number(v);
}

export function decodeCbor(body: Buffer): unknown {
  if (body.length === 0) throw new DecodeError('unexpected EOF');
  try {
    return toJson(decoder.decode(body), new Set());
  } catch (err) {
    if (err instanceof DecodeError) throw err;
    throw new DecodeError(`cbor: ${(err as Error).message}`);
  }
}
