import type { Field, Type } from 'protobufjs';
import { FIELD_FACTS } from '../schema/field-facts';
import { isInlineField } from '../schema/proto-loader';
import { STRING_LIST_MESSAGES } from '../generated/api-facts';
import { jsonInSlices } from './json-in-slices';
import { encodeWith, type ProtoWriter } from './proto-writer';
import { writeFieldsV1Text } from './fields-v1-text';

/**
 * Plain JSON objects to Kubernetes' protobuf schema, byte for byte as the generated Go marshallers
 * write them: fields in field-number order, map entries sorted by key, and every non-pointer
 * scalar written even when it is zero ("" or 0 or false). A pointer scalar (field fact pointer)
 * is written only when the JSON has it; a message only when the JSON has it.
 *
 * Each message type is planned once into one writer function per field, chosen by the field's
 * shape and scalar type, so writing a value makes no decision the plan could make.
 */

const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';

const VARINT = 0;
const LENGTH = 2;

type Json = Record<string, unknown>;

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

type ValueWriter = (w: ProtoWriter, value: unknown) => void;

/** Tags of the special messages' fields: field 1, 2 or 3 as a varint or as length-delimited. */
const TAG1_VARINT = (1 << 3) | VARINT;
const TAG2_VARINT = (2 << 3) | VARINT;
const TAG1_LENGTH = (1 << 3) | LENGTH;
const TAG3_LENGTH = (3 << 3) | LENGTH;

/** A message's `optional bytes raw = 1` holding the JSON text of the value (an embedded object). */
const writeJsonText: ValueWriter = (w, value) => {
  if (value === null || value === undefined) return;
  w.uint32(TAG1_LENGTH);
  w.string(JSON.stringify(value));
};

/** The last metav1.Time written and its seconds: an object's times are mostly one (created, managed, started, conditions). */
let lastTime = '';
let lastSeconds = 0;

function wholeSecondsOf(value: string): number {
  if (value !== lastTime) {
    lastSeconds = parseTime(value).seconds;
    lastTime = value;
  }
  return lastSeconds;
}

const RAW_EXTENSION = '.k8s.io.apimachinery.pkg.runtime.RawExtension';
const FIELDS_V1 = `${META}.FieldsV1`;

/** Messages whose JSON form is not an object of their fields: written from their JSON value. */
const SPECIAL: Record<string, ValueWriter> = {
  [`${META}.Time`]: (w, value) => {
    if (typeof value !== 'string' || value === '') return;
    // metav1.Time keeps whole seconds only; Timestamp writes both of its fields.
    w.uint32(TAG1_VARINT);
    w.int64(wholeSecondsOf(value));
    w.uint32(TAG2_VARINT);
    w.uint32(0);
  },
  [`${META}.MicroTime`]: (w, value) => {
    if (typeof value !== 'string' || value === '') return;
    const { seconds, nanos } = parseTime(value);
    w.uint32(TAG1_VARINT);
    w.int64(seconds);
    w.uint32(TAG2_VARINT);
    w.int64(Math.floor(nanos / 1000) * 1000);
  },
  [`${META}.Duration`]: (w, value) => {
    w.uint32(TAG1_VARINT);
    w.int64(typeof value === 'string' ? parseDuration(value) : 0);
  },
  [FIELDS_V1]: (w, value) => {
    if (value === null || value === undefined) return;
    w.uint32(TAG1_LENGTH);
    if (typeof value !== 'object' || !writeFieldsV1Text(w, value)) w.string(JSON.stringify(value));
  },
  [RAW_EXTENSION]: writeJsonText,
  '.k8s.io.apimachinery.pkg.util.intstr.IntOrString': (w, value) => {
    const isString = typeof value === 'string';
    w.uint32(TAG1_VARINT);
    w.uint32(isString ? 1 : 0);
    w.uint32(TAG2_VARINT);
    w.int64(isString ? 0 : Number(value ?? 0));
    w.uint32(TAG3_LENGTH);
    w.string(isString ? value : '');
  },
  '.k8s.io.apimachinery.pkg.api.resource.Quantity': (w, value) => {
    w.uint32(TAG1_LENGTH);
    w.string(value === null || value === undefined ? '0' : String(value));
  },
  // Named []string types (ExtraValue, Verbs): the JSON list, as the message's `repeated string items = 1`.
  ...Object.fromEntries(
    STRING_LIST_MESSAGES.map((m): [string, ValueWriter] => [
      `.${m}`,
      (w, value) => {
        if (!Array.isArray(value)) return;
        for (const item of value) {
          w.uint32(TAG1_LENGTH);
          w.string(String(item));
        }
      },
    ]),
  ),
};

/** Time and MicroTime are non-pointer structs where they are written at all: null is the zero time. */
const NULL_IS_ZERO = new Set([`${META}.Time`, `${META}.MicroTime`]);

/** The scalar types of the release's messages: each one's wire type and the writer of its JSON value. */
const SCALARS: Record<string, { wire: number; write: ValueWriter }> = {
  string: { wire: LENGTH, write: (w, v) => w.string(typeof v === 'string' ? v : String(v)) },
  bytes: { wire: LENGTH, write: (w, v) => (typeof v === 'string' ? w.base64(v) : w.bytes(Buffer.from(v as Uint8Array))) },
  bool: { wire: VARINT, write: (w, v) => w.bool(v === true) },
  int32: { wire: VARINT, write: (w, v) => w.int64(Number(v)) },
  int64: { wire: VARINT, write: (w, v) => w.int64(Number(v)) },
};

function scalarOf(type: Type, field: Field): { wire: number; write: ValueWriter } {
  const scalar = SCALARS[field.type];
  if (!scalar) throw new Error(`protobuf encoding: ${type.fullName}.${field.name} is a ${field.type}, a type no message of the release has`);
  return scalar;
}

/** Writes one field of an object (the JSON form of the field's message). */
type FieldWrite = (w: ProtoWriter, obj: Json) => void;

interface MessagePlan {
  type: Type;
  /** Written from its JSON value (a time, a quantity, a JSON text) rather than as an object of fields. */
  special: ValueWriter | null;
  /** Holds the JSON text of its value (FieldsV1, RawExtension). */
  holdsJson: boolean;
  /** Planned on first use: messages refer to each other, and to themselves (JSONSchemaProps). */
  fields: FieldPlan[] | null;
}

interface FieldPlan {
  name: string;
  message: MessagePlan | null;
  /** An inlined Go struct: its fields are read from the embedding object. */
  inline: boolean;
  map: boolean;
  repeated: boolean;
  write: FieldWrite;
}

const messagePlans = new Map<Type, MessagePlan>();

function messagePlanOf(type: Type): MessagePlan {
  let plan = messagePlans.get(type);
  if (plan === undefined) {
    // a Type's fullName is joined from its parents' names on each access: read once here
    const name = type.fullName;
    plan = { type, special: SPECIAL[name] ?? null, holdsJson: name === FIELDS_V1 || name === RAW_EXTENSION, fields: null };
    messagePlans.set(type, plan);
  }
  return plan;
}

function fieldsOf(plan: MessagePlan): FieldPlan[] {
  return (plan.fields ??= [...plan.type.fieldsArray].sort((a, b) => a.id - b.id).map((field) => planField(plan.type, field)));
}

function planField(type: Type, field: Field): FieldPlan {
  field.resolve();
  const resolved = field.resolvedType as Type | null;
  const message = resolved !== null && 'fieldsArray' in resolved ? messagePlanOf(resolved) : null;
  const inline = message !== null && isInlineField(type, field);
  return { name: field.name, message, inline, map: field.map, repeated: field.repeated, write: fieldWrite(type, field, message, inline) };
}

function fieldWrite(type: Type, field: Field, message: MessagePlan | null, inline: boolean): FieldWrite {
  const name = field.name;
  if (field.map) return mapWrite(type, field, message);
  if (message) {
    const tag = (field.id << 3) | LENGTH;
    if (inline) return (w, obj) => writeNested(w, tag, message, obj);
    if (field.repeated) {
      return (w, obj) => {
        const v = obj[name];
        if (!Array.isArray(v)) return;
        for (const item of v) if (item !== null && item !== undefined) writeNested(w, tag, message, item);
      };
    }
    if (NULL_IS_ZERO.has(message.type.fullName)) {
      return (w, obj) => {
        const v = obj[name];
        if (v !== undefined) writeNested(w, tag, message, v);
      };
    }
    return (w, obj) => {
      const v = obj[name];
      if (v !== undefined && v !== null) writeNested(w, tag, message, v);
    };
  }
  const { wire, write } = scalarOf(type, field);
  // Go writes repeated scalars of proto2 messages unpacked: one tag, with the scalar's own wire type, per item.
  const tag = (field.id << 3) | wire;
  if (field.repeated) {
    return (w, obj) => {
      const v = obj[name];
      if (!Array.isArray(v)) return;
      for (const item of v) {
        if (item === null || item === undefined) continue;
        w.uint32(tag);
        write(w, item);
      }
    };
  }
  if (field.type === 'bytes' || FIELD_FACTS[type.fullName.slice(1)]?.[name]?.pointer) {
    return (w, obj) => {
      const v = obj[name];
      if (v === undefined || v === null) return;
      w.uint32(tag);
      write(w, v);
    };
  }
  return zeroFilledWrite(field, tag);
}

/**
 * A non-pointer Go scalar, written when the JSON leaves it out: its zero, "" or 0 or false, is one
 * 0 byte. Most fields written are these; each scalar type has its own writer, so the value is
 * written without a call through the type's value writer.
 */
function zeroFilledWrite(field: Field, tag: number): FieldWrite {
  const name = field.name;
  switch (field.type) {
    case 'string':
      return (w, obj) => {
        const v = obj[name];
        w.uint32(tag);
        if (typeof v === 'string') w.string(v);
        else if (v === undefined || v === null) w.uint32(0);
        else w.string(String(v));
      };
    case 'bool':
      return (w, obj) => {
        w.uint32(tag);
        w.bool(obj[name] === true);
      };
    default: {
      // int32 and int64: bytes are never zero-filled, and scalarOf has refused the types no message has
      return (w, obj) => {
        const v = obj[name];
        w.uint32(tag);
        w.int64(v === undefined || v === null ? 0 : Number(v));
      };
    }
  }
}

/** Map entries: a message {key = 1, value = 2} each, sorted by key. Every map of the release is keyed by string. */
function mapWrite(type: Type, field: Field, message: MessagePlan | null): FieldWrite {
  const keyType = (field as Field & { keyType: string }).keyType;
  if (keyType !== 'string') throw new Error(`protobuf encoding: ${type.fullName}.${field.name} is a map keyed by ${keyType}, which no map of the release is`);
  const name = field.name;
  const tag = (field.id << 3) | LENGTH;
  const keyTag = (1 << 3) | LENGTH;
  if (message) {
    const valueTag = (2 << 3) | LENGTH;
    return (w, obj) => {
      const v = obj[name];
      if (typeof v !== 'object' || v === null) return;
      for (const key of keysInGoOrder(v as Json)) {
        w.uint32(tag);
        const start = w.begin();
        w.uint32(keyTag);
        w.string(key);
        writeNested(w, valueTag, message, (v as Json)[key]);
        w.end(start);
      }
    };
  }
  const { wire, write } = scalarOf(type, field);
  const valueTag = (2 << 3) | wire;
  return (w, obj) => {
    const v = obj[name];
    if (typeof v !== 'object' || v === null) return;
    for (const key of keysInGoOrder(v as Json)) {
      const entry = (v as Json)[key];
      w.uint32(tag);
      const start = w.begin();
      w.uint32(keyTag);
      w.string(key);
      if (entry !== null && entry !== undefined) {
        w.uint32(valueTag);
        write(w, entry);
      }
      w.end(start);
    }
  };
}

/** A UTF-16 code unit ranked as the UTF-8 of what it starts ranks: surrogates (astral characters) above U+E000–U+FFFF. */
function utf8Rank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Strings in the byte order of their UTF-8, Go's string order. */
function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? utf8Rank(x) - utf8Rank(y) : x - y;
  }
  return a.length - b.length;
}

/** A map's keys in the order Go's generated marshallers write them (sortkeys.Strings); most maps arrive in it already. */
function keysInGoOrder(map: Json): string[] {
  const keys = Object.keys(map);
  for (let i = 1; i < keys.length; i++) if (compareUtf8(keys[i - 1], keys[i]) > 0) return keys.sort(compareUtf8);
  return keys;
}

/** While encodeMessageInSlices writes the whole: the items of long lists and the JSON values it has encoded, by object. */
let preEncoded: Map<unknown, { type: MessagePlan; bytes: Uint8Array }> | null = null;

function writeNested(w: ProtoWriter, tag: number, message: MessagePlan, value: unknown): void {
  w.uint32(tag);
  if (preEncoded !== null) {
    const done = preEncoded.get(value);
    if (done?.type === message) {
      w.bytes(done.bytes);
      return;
    }
  }
  const start = w.begin();
  writeMessage(w, message, value);
  w.end(start);
}

function writeMessage(w: ProtoWriter, message: MessagePlan, value: unknown): void {
  if (message.special) {
    message.special(w, value);
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const fields = fieldsOf(message);
  for (let i = 0; i < fields.length; i++) fields[i].write(w, value as Json);
}

/** Writes the fields of `value` (the JSON form of a `type` message) without a length prefix. */
export function encodeMessageTo(w: ProtoWriter, type: Type, value: unknown): void {
  writeMessage(w, messagePlanOf(type), value);
}

/** The message bytes of one object. */
export function encodeMessage(type: Type, value: unknown): Buffer {
  const message = messagePlanOf(type);
  return encodeWith((w) => writeMessage(w, message, value));
}

/** A list at least this long has its items encoded ahead of the whole, in slices. */
const LONG_LIST = 256;
/** Items encoded between two slice checks. */
const ITEMS_PER_CHECK = 64;

/** What encodeMessageInSlices encodes ahead: the long lists of messages in `value` outside other long lists, and its JSON values (managed fields' sets). */
interface Ahead {
  lists: [MessagePlan, unknown[]][];
  json: [MessagePlan, object][];
}

function longLists(message: MessagePlan, value: unknown, out: Ahead): void {
  if (typeof value !== 'object' || value === null) return;
  if (message.special) {
    if (message.holdsJson) out.json.push([message, value]);
    return;
  }
  if (Array.isArray(value)) return;
  const obj = value as Json;
  for (const p of fieldsOf(message)) {
    if (!p.message) continue;
    if (p.inline) {
      longLists(p.message, obj, out);
      continue;
    }
    const v = obj[p.name];
    if (p.map) {
      if (typeof v === 'object' && v !== null) for (const entry of Object.values(v)) longLists(p.message, entry, out);
    } else if (p.repeated) {
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
  const whole = messagePlanOf(type);
  const ahead: Ahead = { lists: [], json: [] };
  longLists(whole, value, ahead);
  if (ahead.lists.length === 0) return encodeMessage(type, value);
  const encoded = new Map<unknown, { type: MessagePlan; bytes: Uint8Array }>();
  for (const [jsonMessage, json] of ahead.json) {
    // the field sets of 20,000 containers' fields: their JSON (less jsonText's newline) is written in slices too
    const text = await jsonInSlices(json, false, slice);
    const bytes = typeof text === 'string' ? Buffer.from(text.slice(0, -1)) : text.subarray(0, -1);
    encoded.set(json, {
      type: jsonMessage,
      bytes: encodeWith((w) => {
        w.uint32(TAG1_LENGTH);
        w.bytes(bytes);
      }),
    });
  }
  for (const [itemMessage, items] of ahead.lists) {
    for (const [i, item] of items.entries()) {
      if (typeof item === 'object' && item !== null) encoded.set(item, { type: itemMessage, bytes: encodeWith((w) => writeMessage(w, itemMessage, item)) });
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
