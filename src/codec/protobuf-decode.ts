import { MapField, Type, type Field } from 'protobufjs';
import { FIELD_FACTS } from '../schema/field-facts';
import { goZerosChildMessages, withOwnGoZeros } from '../schema/go-zeros';
import { isInlineField, messageName } from '../schema/proto-loader';
import { deepFreeze } from '../api/deep-freeze';
import { setOwn } from '../api/types';
import { interned } from './interned-strings';
import { RecentlySeen } from './recently-seen';

/**
 * Protobuf wire bytes straight to the JSON Kubernetes writes for them: one pass per message, with
 * Go's zero values filled in as each object is made. protobufjs's decoder made a message object
 * of every message (and a Long of every int64) that a second walk then turned into JSON.
 *
 * For what storage reads, messages of at most SHARED_MAX_BYTES are remembered by their bytes:
 * equal bytes decode to one frozen object, shared by every object that holds them. The pods of one template hold the same
 * containers, probes, volumes and tolerations; the watch cache keeps one copy of each instead of
 * one per pod, and a hit skips the decoding. Objects read from storage are never changed in place
 * (writes work on copies), which freezing makes sure of.
 */

/** A special message's fields as decoded: int64s as numbers, bytes as views of the input. */
export type DecodedFields = Record<string, unknown>;

/** Messages whose JSON is not an object of their fields; each turns its decoded fields into that JSON. */
export type SpecialMessages = Record<string, (fields: DecodedFields) => unknown>;

/** Messages up to this size are shared between the objects that hold them. */
const SHARED_MAX_BYTES = 512;
/** Distinct values remembered per message type (in each of two generations). */
const SHARED_PER_TYPE = 1024;
/** Metadata is rewritten after every read (its resourceVersion): never shared. */
const NEVER_SHARED = new Set(['k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta']);
/**
 * An object's name and uid are its own: no other object holds them, so interning them would only
 * look them up and keep them in the table (a create's decode of its watch event missed twice).
 */
const NEVER_INTERNED = new Set(['k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.name', 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.uid']);

const enum Wire {
  Varint = 0,
  Fixed64 = 1,
  Bytes = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5,
}

type Scalar =
  | 'double'
  | 'float'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'fixed32'
  | 'fixed64'
  | 'sfixed32'
  | 'sfixed64'
  | 'bool'
  | 'string'
  | 'bytes';

interface FieldPlan {
  name: string;
  /** Position in the output, the message's field order. */
  slot: number;
  repeated: boolean;
  /** A scalar's type; null for a message field. */
  scalar: Scalar | null;
  /** A message field's (or map value's) type. */
  type: Type | null;
  /** A map's key type. */
  key: Scalar | null;
  inline: boolean;
  /** Written even when zero ("", 0, false): a pointer or a field without omitempty. */
  keepZero: boolean;
  /** What Go zeros fill this field's messages as (null: they are not filled). */
  fill: string | null;
  /** Whether its short strings are interned: not for the ones each object has its own of. */
  intern: boolean;
  /** The plan of the field's messages, made on first use (types nest, and refer to themselves). */
  plan: MessagePlan | null;
}

interface MessagePlan {
  special: ((fields: DecodedFields) => unknown) | undefined;
  /** Fields by number (an array: Kubernetes' field numbers are small, and an index needs no hashing). */
  byNumber: (FieldPlan | undefined)[];
  fields: FieldPlan[];
  /** The message its own zeros are filled as; null when not filled here (unfilled, or inlined: the embedding object fills). */
  ownZeros: string | null;
  shared: Sharing | null;
}

/**
 * A type's values remembered by their bytes, and how often that pays: a type whose values rarely
 * repeat (a pod's conditions, each with its own time) would pay a key and a freeze per value for
 * nothing, so a window with few hits pauses its sharing for PAUSE_WINDOWS windows.
 */
interface Sharing {
  seen: RecentlySeen<object>;
  lookups: number;
  hits: number;
  /** Values still to decode without looking them up. */
  paused: number;
}

/** Lookups per window, and the share of hits below which a type's sharing pauses. */
const WINDOW = 1024;
const MIN_HITS_PER_WINDOW = WINDOW / 8;
const PAUSE_WINDOWS = 15;

/** Buffer's own slicing decoders (Node's, not in its typings), without toString's encoding lookup. */
interface SlicingBuffer {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

/** A cursor over the input. */
interface Input {
  buf: Buffer;
  pos: number;
}

function outOfRange(input: Input, length: number, end: number): Error {
  return new RangeError(`index out of range: ${input.pos} + ${length} > ${end}`);
}

function varint32(input: Input, end: number): number {
  const buf = input.buf;
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (input.pos >= end) throw outOfRange(input, 1, end);
    const b = buf[input.pos++];
    value |= (b & 0x7f) << shift;
    if (b < 0x80) return value >>> 0;
  }
  // A negative int32 is written as ten bytes; the high ones say nothing more.
  for (let i = 0; i < 5; i++) {
    if (input.pos >= end) throw outOfRange(input, 1, end);
    if (buf[input.pos++] < 0x80) return value >>> 0;
  }
  throw new Error('invalid varint encoding');
}

/** An int64 or uint64 varint as a number (exact below 2^53, as Long.toNumber). */
function varint64(input: Input, end: number, unsigned: boolean): number {
  const buf = input.buf;
  let lo = 0;
  let hi = 0;
  let i = 0;
  for (; i < 10; i++) {
    if (input.pos >= end) throw outOfRange(input, 1, end);
    const b = buf[input.pos++];
    if (i < 4) lo |= (b & 0x7f) << (i * 7);
    else if (i === 4) {
      lo |= (b & 0x0f) << 28;
      hi |= (b & 0x7f) >> 4;
    } else hi |= (b & 0x7f) << (i * 7 - 32);
    if (b < 0x80) break;
  }
  if (i === 10) throw new Error('invalid varint encoding');
  if (!unsigned && hi >>> 31) {
    // Two's complement, as protobufjs's LongBits.toNumber.
    const nlo = (~lo + 1) >>> 0;
    let nhi = ~hi >>> 0;
    if (!nlo) nhi = (nhi + 1) >>> 0;
    return -(nlo + nhi * 4294967296);
  }
  return (lo >>> 0) + (hi >>> 0) * 4294967296;
}

function take(input: Input, length: number, end: number): number {
  const start = input.pos;
  if (start + length > end) throw outOfRange(input, length, end);
  input.pos = start + length;
  return start;
}

/** Where the `length` bytes at the input's position end, which must be within `end`. */
function within(input: Input, length: number, end: number): number {
  if (input.pos + length > end) throw outOfRange(input, length, end);
  return input.pos + length;
}

function skip(input: Input, wire: number, end: number): void {
  switch (wire) {
    case Wire.Varint:
      varint64(input, end, true);
      return;
    case Wire.Fixed64:
      take(input, 8, end);
      return;
    case Wire.Bytes:
      take(input, varint32(input, end), end);
      return;
    case Wire.StartGroup:
      for (;;) {
        const tag = varint32(input, end);
        if ((tag & 7) === Wire.EndGroup) return;
        skip(input, tag & 7, end);
      }
    case Wire.Fixed32:
      take(input, 4, end);
      return;
    default:
      throw new Error(`invalid wire type ${wire} at offset ${input.pos}`);
  }
}

/** runtime.Unknown as the `k8s\0` envelope carries it: typeMeta's strings, and where `raw` lies in the input. */
export interface Envelope {
  apiVersion: string;
  kind: string;
  rawStart: number;
  rawEnd: number;
}

/** A length-delimited field's start, its end left at input.pos; throws unless the tag said length-delimited. */
function delimited(input: Input, wire: number, end: number): number {
  if (wire !== Wire.Bytes) throw new Error(`invalid wire type ${wire} at offset ${input.pos}`);
  return take(input, varint32(input, end), end);
}

/**
 * runtime.Unknown in `buf[start, end)`: typeMeta (1: apiVersion 1, kind 2) and raw (2); its
 * contentEncoding and contentType (3, 4) are skipped, as kube's serializer reads only these. A
 * field written twice keeps its last value, as Go's Unmarshal of a string or bytes field does.
 * Read here rather than through protobufjs, which makes a message object per part and a copy of raw.
 */
export function decodeEnvelope(buf: Buffer, start: number, end: number): Envelope {
  const input: Input = { buf, pos: start };
  const text = buf as unknown as SlicingBuffer;
  const out: Envelope = { apiVersion: '', kind: '', rawStart: 0, rawEnd: 0 };
  while (input.pos < end) {
    const tag = varint32(input, end);
    const field = tag >>> 3;
    if (field === 1) {
      const meta: Input = { buf, pos: delimited(input, tag & 7, end) };
      const metaEnd = input.pos;
      while (meta.pos < metaEnd) {
        const metaTag = varint32(meta, metaEnd);
        const metaField = metaTag >>> 3;
        if (metaField === 1) out.apiVersion = text.utf8Slice(delimited(meta, metaTag & 7, metaEnd), meta.pos);
        else if (metaField === 2) out.kind = text.utf8Slice(delimited(meta, metaTag & 7, metaEnd), meta.pos);
        else skip(meta, metaTag & 7, metaEnd);
      }
    } else if (field === 2) {
      out.rawStart = delimited(input, tag & 7, end);
      out.rawEnd = input.pos;
    } else skip(input, tag & 7, end);
  }
  return out;
}

/** Reads a scalar whose tag said `wire`. */
function scalarValue(input: Input, scalar: Scalar, end: number): unknown {
  const buf = input.buf;
  switch (scalar) {
    case 'string': {
      const length = varint32(input, end);
      const start = take(input, length, end);
      return (buf as unknown as SlicingBuffer).utf8Slice(start, start + length);
    }
    case 'bytes': {
      const length = varint32(input, end);
      const start = take(input, length, end);
      return buf.subarray(start, start + length);
    }
    case 'bool':
      return varint64(input, end, true) !== 0;
    case 'int32':
      return varint32(input, end) | 0;
    case 'uint32':
      return varint32(input, end);
    case 'sint32': {
      const v = varint32(input, end);
      return (v >>> 1) ^ -(v & 1);
    }
    case 'int64':
      return varint64(input, end, false);
    case 'uint64':
      return varint64(input, end, true);
    case 'sint64': {
      const v = varint64(input, end, true);
      // Zigzag on a double: exact below 2^53, as the values Kubernetes writes are.
      return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
    }
    case 'fixed32':
      return buf.readUInt32LE(take(input, 4, end));
    case 'sfixed32':
      return buf.readInt32LE(take(input, 4, end));
    case 'float':
      return buf.readFloatLE(take(input, 4, end));
    case 'double':
      return buf.readDoubleLE(take(input, 8, end));
    case 'fixed64': {
      const at = take(input, 8, end);
      return buf.readUInt32LE(at) + buf.readUInt32LE(at + 4) * 4294967296;
    }
    case 'sfixed64': {
      const at = take(input, 8, end);
      return buf.readUInt32LE(at) + buf.readInt32LE(at + 4) * 4294967296;
    }
  }
}

/** The wire type a scalar is written with unpacked. */
function wireOf(scalar: Scalar): Wire {
  switch (scalar) {
    case 'string':
    case 'bytes':
      return Wire.Bytes;
    case 'fixed32':
    case 'sfixed32':
    case 'float':
      return Wire.Fixed32;
    case 'fixed64':
    case 'sfixed64':
    case 'double':
      return Wire.Fixed64;
    default:
      return Wire.Varint;
  }
}

/** A scalar as Kubernetes' JSON writes it: bytes in base64, short strings shared unless the field's are each object's own. */
function scalarJson(value: unknown, intern: boolean): unknown {
  if (typeof value === 'string') return intern ? interned(value) : value;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  return value;
}

/** A scalar's zero as its JSON shows it: bytes are base64, so an empty value is "" as a string's is (a Secret's data entry without its value). */
function scalarZero(scalar: Scalar): unknown {
  return scalar === 'string' || scalar === 'bytes' ? '' : scalar === 'bool' ? false : 0;
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

function scalarOf(field: Field, type: string): Scalar {
  // protobufjs resolves enums to an Enum; Kubernetes' protos have none, but their values are int32s.
  return (field.resolvedType && !(field.resolvedType instanceof Type) ? 'int32' : type) as Scalar;
}

function fieldsByNumber(type: Type, fields: FieldPlan[]): (FieldPlan | undefined)[] {
  const byNumber: (FieldPlan | undefined)[] = [];
  type.fieldsArray.forEach((field, slot) => (byNumber[field.id] = fields[slot]));
  return byNumber;
}

export class ProtobufDecoder {
  private readonly plans = new Map<Type, Map<string, MessagePlan>>();

  /** `share`: messages of equal bytes decode to one frozen object (for what storage reads, never for a request's body, which is changed in place). */
  constructor(
    private readonly specials: SpecialMessages,
    private readonly share: boolean,
  ) {}

  /** The JSON of the message `type` in `buf[start, end)`, with Go's zeros as `fill` (a message name) has them. */
  decode(type: Type, buf: Buffer, start: number, end: number, fill: string | null): Record<string, unknown> {
    const input: Input = { buf, pos: start };
    return this.message(this.planOf(type, fill, false), input, end) as Record<string, unknown>;
  }

  private planOf(type: Type, fill: string | null, inline: boolean): MessagePlan {
    let byFill = this.plans.get(type);
    if (!byFill) this.plans.set(type, (byFill = new Map()));
    const key = `${inline ? 'inline ' : ''}${fill ?? ''}`;
    let plan = byFill.get(key);
    if (plan) return plan;
    const name = messageName(type);
    const facts = FIELD_FACTS[name];
    const children = fill ? goZerosChildMessages(fill) : null;
    const special = Object.hasOwn(this.specials, name) ? this.specials[name] : undefined;
    const fields = type.fieldsArray.map((field, slot): FieldPlan => {
      const message = field.resolvedType instanceof Type ? field.resolvedType : null;
      const isMap = field instanceof MapField;
      return {
        name: field.name,
        slot,
        repeated: field.repeated,
        scalar: message ? null : scalarOf(field, field.type),
        type: message,
        key: isMap ? ((field as MapField).keyType as Scalar) : null,
        inline: isInlineField(type, field),
        keepZero: facts?.[field.name]?.keepZero === true,
        fill: children?.get(field.name) ?? null,
        intern: !NEVER_INTERNED.has(`${name}.${field.name}`),
        plan: null,
      };
    });
    plan = {
      special,
      byNumber: fieldsByNumber(type, fields),
      fields,
      ownZeros: inline ? null : fill,
      shared:
        !this.share || special || inline || NEVER_SHARED.has(name) ? null : { seen: new RecentlySeen<object>(SHARED_PER_TYPE), lookups: 0, hits: 0, paused: 0 },
    };
    byFill.set(key, plan);
    return plan;
  }

  private fieldPlan(field: FieldPlan): MessagePlan {
    return (field.plan ??= this.planOf(field.type!, field.fill, field.inline));
  }

  /** A message's JSON; the input is at its first field and it ends at `end`. */
  private message(plan: MessagePlan, input: Input, end: number): unknown {
    if (plan.special) return plan.special(this.fields(plan, input, end));
    const slots: unknown[] = new Array(plan.fields.length);
    while (input.pos < end) {
      const tag = varint32(input, end);
      const wire = tag & 7;
      const field = plan.byNumber[tag >>> 3];
      if (!field) {
        skip(input, wire, end);
        continue;
      }
      if (field.key) {
        const map = (slots[field.slot] ??= {}) as Record<string, unknown>;
        this.mapEntry(field, map, input, end);
      } else if (field.type) {
        if (wire !== Wire.Bytes) throw new Error(`invalid wire type ${wire} for message field ${field.name}`);
        const value = this.nested(field, input, end);
        if (field.repeated) ((slots[field.slot] ??= []) as unknown[]).push(value);
        else slots[field.slot] = value;
      } else if (field.repeated) {
        const items = (slots[field.slot] ??= []) as unknown[];
        if (wire === Wire.Bytes && wireOf(field.scalar!) !== Wire.Bytes) {
          // Packed.
          const packedEnd = within(input, varint32(input, end), end);
          while (input.pos < packedEnd) items.push(scalarJson(scalarValue(input, field.scalar!, packedEnd), field.intern));
        } else items.push(scalarJson(scalarValue(input, field.scalar!, end), field.intern));
      } else {
        slots[field.slot] = scalarJson(scalarValue(input, field.scalar!, end), field.intern);
      }
    }
    const out: Record<string, unknown> = {};
    for (const field of plan.fields) {
      const value = slots[field.slot];
      if (value === undefined) continue;
      if (field.inline) {
        Object.assign(out, value);
      } else if (field.key) {
        out[field.name] = value;
      } else if (field.repeated) {
        // A copy of exactly its length: the array grew by push, which leaves room for 16 more (128 bytes
        // per list, a third of a cached pod's heap), and stored objects stay in the watch cache.
        if ((value as unknown[]).length > 0) out[field.name] = (value as unknown[]).slice();
      } else if (field.type || !isZero(value) || field.keepZero) {
        out[field.name] = value;
      }
    }
    if (plan.ownZeros) withOwnGoZeros(plan.ownZeros, out);
    return out;
  }

  /** A message field's value: shared when its bytes were decoded lately. */
  private nested(field: FieldPlan, input: Input, end: number): unknown {
    const length = varint32(input, end);
    const start = take(input, length, end);
    const plan = this.fieldPlan(field);
    const sharing = plan.shared;
    if (!sharing || length > SHARED_MAX_BYTES || (sharing.paused > 0 && sharing.paused-- > 0)) {
      return this.message(plan, { buf: input.buf, pos: start }, start + length);
    }
    const key = (input.buf as unknown as SlicingBuffer).latin1Slice(start, start + length);
    const known = sharing.seen.get(key);
    if (++sharing.lookups === WINDOW) {
      if (sharing.hits < MIN_HITS_PER_WINDOW) sharing.paused = WINDOW * PAUSE_WINDOWS;
      sharing.lookups = sharing.hits = 0;
    }
    if (known !== undefined) {
      sharing.hits++;
      return known;
    }
    const value = this.message(plan, { buf: input.buf, pos: start }, start + length);
    if (typeof value === 'object' && value !== null) sharing.seen.set(key, deepFreeze(value));
    return value;
  }

  private mapEntry(field: FieldPlan, map: Record<string, unknown>, input: Input, outerEnd: number): void {
    const end = within(input, varint32(input, outerEnd), outerEnd);
    let key: unknown = field.key === 'string' ? '' : 0;
    let value: unknown;
    while (input.pos < end) {
      const tag = varint32(input, end);
      switch (tag >>> 3) {
        case 1:
          key = scalarValue(input, field.key!, end);
          break;
        case 2:
          value = field.type ? this.nested(field, input, end) : scalarJson(scalarValue(input, field.scalar!, end), true);
          break;
        default:
          skip(input, tag & 7, end);
      }
    }
    // An entry without its value holds the value's zero.
    value ??= field.type ? this.message(this.fieldPlan(field), { buf: input.buf, pos: end }, end) : scalarZero(field.scalar!);
    setOwn(map, typeof key === 'string' ? interned(key) : String(key), value);
  }

  /** A special message's fields by name, for its own conversion. */
  private fields(plan: MessagePlan, input: Input, end: number): DecodedFields {
    const out: DecodedFields = {};
    while (input.pos < end) {
      const tag = varint32(input, end);
      const field = plan.byNumber[tag >>> 3];
      if (!field || field.type || field.key) {
        skip(input, tag & 7, end);
        continue;
      }
      const value = scalarValue(input, field.scalar!, end);
      if (field.repeated) ((out[field.name] ??= []) as unknown[]).push(value);
      else out[field.name] = value;
    }
    return out;
  }
}
