import { Writer, type Field, type Type } from 'protobufjs';
import { FIELD_FACTS } from '../schema/field-facts';
import { isInlineField } from '../schema/proto-loader';
import { STRING_LIST_MESSAGES } from '../generated/api-facts';
import { jsonInSlices } from './json-in-slices';

/**
 * Plain JSON objects to Kubernetes' protobuf schema, byte for byte as the generated Go marshallers
 * write them: fields in field-number order, map entries sorted by key, and every non-pointer
 * scalar written even when it is zero ("" or 0 or false). A pointer scalar (field fact pointer)
 * is written only when the JSON has it; a message only when the JSON has it.
 */

const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';

const VARINT = 0;
const FIXED64 = 1;
const LENGTH = 2;
const FIXED32 = 5;

type Json = Record<string, unknown>;

function wireType(type: string): number {
  switch (type) {
    case 'double':
    case 'fixed64':
    case 'sfixed64':
      return FIXED64;
    case 'float':
    case 'fixed32':
    case 'sfixed32':
      return FIXED32;
    case 'string':
    case 'bytes':
      return LENGTH;
    default:
      return VARINT;
  }
}

function writeScalar(w: Writer, type: string, value: unknown): void {
  switch (type) {
    case 'string':
      w.string(typeof value === 'string' ? value : String(value));
      return;
    case 'bytes':
      w.bytes(typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.from(value as Uint8Array));
      return;
    case 'bool':
      w.bool(value === true);
      return;
    case 'double':
      w.double(Number(value));
      return;
    case 'float':
      w.float(Number(value));
      return;
    case 'int32':
      w.int32(Number(value));
      return;
    case 'uint32':
      w.uint32(Number(value));
      return;
    case 'sint32':
      w.sint32(Number(value));
      return;
    case 'uint64':
      w.uint64(Number(value));
      return;
    case 'sint64':
      w.sint64(Number(value));
      return;
    case 'fixed32':
      w.fixed32(Number(value));
      return;
    case 'sfixed32':
      w.sfixed32(Number(value));
      return;
    case 'fixed64':
      w.fixed64(Number(value));
      return;
    case 'sfixed64':
      w.sfixed64(Number(value));
      return;
    default:
      w.int64(Number(value));
  }
}

function zeroOf(type: string): unknown {
  return type === 'string' ? '' : type === 'bool' ? false : 0;
}

/** The number of `length` decimal digits at `start`, or -1 when one of them is not a digit. */
function digitsAt(value: string, start: number, length: number): number {
  let n = 0;
  for (let i = start; i < start + length; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * `2006-01-02T15:04:05Z`, the form metav1.Time writes and nearly every stored time has, read by
 * position; null for anything else, or for a field out of the ranges where Date.UTC and Date.parse agree.
 */
function parseWholeSecondsUtc(value: string): number | null {
  if (value.length !== 20 || value[4] !== '-' || value[7] !== '-' || value[10] !== 'T' || value[13] !== ':' || value[16] !== ':' || value[19] !== 'Z')
    return null;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59)
    return null;
  return Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
}

/** RFC 3339 seconds, and the fraction as nanoseconds (metav1.MicroTime keeps microseconds). */
export function parseTime(value: string): { seconds: number; nanos: number } {
  const seconds = parseWholeSecondsUtc(value);
  if (seconds !== null) return { seconds, nanos: 0 };
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return { seconds: 0, nanos: 0 };
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  return { seconds: Math.floor(ms / 1000), nanos: Number(fraction.slice(0, 9).padEnd(9, '0')) };
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration, to nanoseconds. */
function parseDuration(value: string): number {
  const sign = value.startsWith('-') ? -1 : 1;
  let total = 0;
  for (const [, amount, unit] of value.replace(/^[-+]/, '').matchAll(/([0-9.]+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(amount) * DURATION_UNITS[unit];
  }
  return sign * Math.round(total);
}

const RAW_EXTENSION = '.k8s.io.apimachinery.pkg.runtime.RawExtension';
/** Messages that hold their value's JSON text (a managed fields entry's field set, an embedded object). */
const JSON_MESSAGES = new Set([`${META}.FieldsV1`, RAW_EXTENSION]);

/** Messages whose JSON form is not an object of their fields: written from their JSON value. */
const SPECIAL: Record<string, (w: Writer, value: unknown) => void> = {
  [`${META}.Time`]: (w, value) => {
    if (typeof value !== 'string' || value === '') return;
    // metav1.Time keeps whole seconds only; Timestamp writes both of its fields.
    w.uint32((1 << 3) | VARINT).int64(parseTime(value).seconds);
    w.uint32((2 << 3) | VARINT).int32(0);
  },
  [`${META}.MicroTime`]: (w, value) => {
    if (typeof value !== 'string' || value === '') return;
    const { seconds, nanos } = parseTime(value);
    w.uint32((1 << 3) | VARINT).int64(seconds);
    w.uint32((2 << 3) | VARINT).int32(Math.floor(nanos / 1000) * 1000);
  },
  [`${META}.Duration`]: (w, value) => {
    w.uint32((1 << 3) | VARINT).int64(typeof value === 'string' ? parseDuration(value) : 0);
  },
  [`${META}.FieldsV1`]: (w, value) => {
    if (value !== null && value !== undefined) w.uint32((1 << 3) | LENGTH).bytes(Buffer.from(JSON.stringify(value)));
  },
  [RAW_EXTENSION]: (w, value) => {
    if (value !== null && value !== undefined) w.uint32((1 << 3) | LENGTH).bytes(Buffer.from(JSON.stringify(value)));
  },
  '.k8s.io.apimachinery.pkg.util.intstr.IntOrString': (w, value) => {
    const isString = typeof value === 'string';
    w.uint32((1 << 3) | VARINT).int64(isString ? 1 : 0);
    w.uint32((2 << 3) | VARINT).int32(isString ? 0 : Number(value ?? 0));
    w.uint32((3 << 3) | LENGTH).string(isString ? value : '');
  },
  '.k8s.io.apimachinery.pkg.api.resource.Quantity': (w, value) => {
    w.uint32((1 << 3) | LENGTH).string(value === null || value === undefined ? '0' : String(value));
  },
  // Named []string types (ExtraValue, Verbs): the JSON list, as the message's `repeated string items = 1`.
  ...Object.fromEntries(
    STRING_LIST_MESSAGES.map((m) => [
      `.${m}`,
      (w: Writer, value: unknown) => {
        if (Array.isArray(value)) for (const item of value) w.uint32((1 << 3) | LENGTH).string(String(item));
      },
    ]),
  ),
};

/** Time and MicroTime are non-pointer structs where they are written at all: null is the zero time. */
const NULL_IS_ZERO = new Set([`${META}.Time`, `${META}.MicroTime`]);

interface FieldPlan {
  field: Field;
  name: string;
  tag: number;
  message: Type | null;
  /** An inlined Go struct: its fields are read from the embedding object. */
  inline: boolean;
  /** A scalar whose zero is written when the JSON leaves it out (a non-pointer Go field). */
  writeZero: boolean;
  mapKeyTag: number;
  mapValueTag: number;
  /** A message field whose JSON null is its zero value, written as such. */
  nullIsZero: boolean;
}

const plans = new Map<Type, FieldPlan[]>();

function planOf(type: Type): FieldPlan[] {
  let plan = plans.get(type);
  if (plan) return plan;
  const facts = FIELD_FACTS[type.fullName.slice(1)] ?? {};
  plan = [...type.fieldsArray]
    .sort((a, b) => a.id - b.id)
    .map((field) => {
      field.resolve();
      const message = (field.resolvedType as Type | null) && 'fieldsArray' in (field.resolvedType as object) ? (field.resolvedType as Type) : null;
      // Go writes repeated scalars of proto2 messages unpacked: one tag, with the scalar's own wire type, per item.
      const wire = message || field.map ? LENGTH : wireType(field.type);
      return {
        field,
        name: field.name,
        tag: (field.id << 3) | (message ? LENGTH : wire),
        message,
        inline: isInlineField(type, field),
        writeZero: !message && !field.map && !field.repeated && field.type !== 'bytes' && !facts[field.name]?.pointer,
        mapKeyTag: (1 << 3) | (field.map ? wireType((field as Field & { keyType: string }).keyType) : 0),
        mapValueTag: (2 << 3) | (message ? LENGTH : wireType(field.type)),
        nullIsZero: message !== null && NULL_IS_ZERO.has(message.fullName),
      };
    });
  plans.set(type, plan);
  return plan;
}

/** While encodeMessageInSlices writes the whole: the items of long lists and the JSON values it has encoded, by object. */
let preEncoded: Map<unknown, { type: Type; bytes: Uint8Array }> | null = null;

function writeNested(w: Writer, tag: number, type: Type, value: unknown): void {
  const done = preEncoded?.get(value);
  if (done?.type === type) {
    w.uint32(tag).bytes(done.bytes);
    return;
  }
  w.uint32(tag).fork();
  encodeMessageTo(w, type, value);
  w.ldelim();
}

/** A type's special writer, looked up once per type (a Type's fullName is computed on each access). */
const specials = new Map<Type, ((w: Writer, value: unknown) => void) | null>();

function specialOf(type: Type): ((w: Writer, value: unknown) => void) | null {
  let special = specials.get(type);
  if (special === undefined) specials.set(type, (special = SPECIAL[type.fullName] ?? null));
  return special;
}

/** Writes the fields of `value` (the JSON form of a `type` message) without a length prefix. */
export function encodeMessageTo(w: Writer, type: Type, value: unknown): void {
  const special = specialOf(type);
  if (special) {
    special(w, value);
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const obj = value as Json;
  for (const p of planOf(type)) {
    if (p.inline) {
      writeNested(w, p.tag, p.message as Type, obj);
      continue;
    }
    const v = obj[p.name];
    if (p.field.map) {
      if (typeof v !== 'object' || v === null) continue;
      const keyType = (p.field as Field & { keyType: string }).keyType;
      for (const key of Object.keys(v).sort()) {
        const entry = (v as Json)[key];
        w.uint32(p.tag).fork();
        w.uint32(p.mapKeyTag);
        writeScalar(w, keyType, key);
        if (p.message) writeNested(w, p.mapValueTag, p.message, entry);
        else if (entry !== null && entry !== undefined) {
          w.uint32(p.mapValueTag);
          writeScalar(w, p.field.type, entry);
        }
        w.ldelim();
      }
    } else if (p.field.repeated) {
      if (!Array.isArray(v)) continue;
      for (const item of v) {
        if (item === null || item === undefined) continue;
        if (p.message) writeNested(w, p.tag, p.message, item);
        else {
          w.uint32(p.tag);
          writeScalar(w, p.field.type, item);
        }
      }
    } else if (p.message) {
      if (v === undefined || (v === null && !p.nullIsZero)) continue;
      writeNested(w, p.tag, p.message, v);
    } else if (v !== undefined && v !== null) {
      w.uint32(p.tag);
      writeScalar(w, p.field.type, v);
    } else if (p.writeZero) {
      w.uint32(p.tag);
      writeScalar(w, p.field.type, zeroOf(p.field.type));
    }
  }
}

/** The message bytes of one object. */
export function encodeMessage(type: Type, value: unknown): Uint8Array {
  const w = Writer.create();
  encodeMessageTo(w, type, value);
  return w.finish();
}

/** A list at least this long has its items encoded ahead of the whole, in slices. */
const LONG_LIST = 256;
/** Items encoded between two slice checks. */
const ITEMS_PER_CHECK = 64;

/** What encodeMessageInSlices encodes ahead: the long lists of messages in `value` outside other long lists, and its JSON values (managed fields' sets). */
interface Ahead {
  lists: [Type, unknown[]][];
  json: [Type, object][];
}

function longLists(type: Type, value: unknown, out: Ahead): void {
  if (typeof value !== 'object' || value === null) return;
  if (specialOf(type)) {
    if (JSON_MESSAGES.has(type.fullName)) out.json.push([type, value]);
    return;
  }
  if (Array.isArray(value)) return;
  const obj = value as Json;
  for (const p of planOf(type)) {
    if (!p.message) continue;
    if (p.inline) {
      longLists(p.message, obj, out);
      continue;
    }
    const v = obj[p.name];
    if (p.field.map) {
      if (typeof v === 'object' && v !== null) for (const entry of Object.values(v)) longLists(p.message, entry, out);
    } else if (p.field.repeated) {
      if (!Array.isArray(v)) continue;
      if (v.length >= LONG_LIST) out.lists.push([p.message, v]);
      else for (const item of v) longLists(p.message, item, out);
    } else {
      longLists(p.message, v, out);
    }
  }
}

/**
 * encodeMessage for a request: the items of long lists (a Deployment's 20,000 containers) are
 * encoded first, a few per slice, then written into the whole as they are, so the encoding does not
 * hold the event loop for the whole object at once. The bytes are encodeMessage's.
 */
export async function encodeMessageInSlices(type: Type, value: unknown, slice: () => Promise<void>): Promise<Uint8Array> {
  const ahead: Ahead = { lists: [], json: [] };
  longLists(type, value, ahead);
  if (ahead.lists.length === 0) return encodeMessage(type, value);
  const encoded = new Map<unknown, { type: Type; bytes: Uint8Array }>();
  for (const [jsonType, json] of ahead.json) {
    // the field sets of 20,000 containers' fields: their JSON (less jsonText's newline) is written in slices too
    const text = await jsonInSlices(json, false, slice);
    const bytes = typeof text === 'string' ? Buffer.from(text.slice(0, -1)) : text.subarray(0, -1);
    encoded.set(json, {
      type: jsonType,
      bytes: Writer.create()
        .uint32((1 << 3) | LENGTH)
        .bytes(bytes)
        .finish(),
    });
  }
  for (const [itemType, items] of ahead.lists) {
    for (const [i, item] of items.entries()) {
      if (typeof item === 'object' && item !== null) encoded.set(item, { type: itemType, bytes: encodeMessage(itemType, item) });
      if (i % ITEMS_PER_CHECK === ITEMS_PER_CHECK - 1) await slice();
    }
  }
  await slice();
  preEncoded = encoded;
  try {
    return encodeMessage(type, value);
  } finally {
    preEncoded = null;
  }
}
