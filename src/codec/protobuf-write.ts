import { Writer, type Type } from 'protobufjs';
import { PROTOBUF_MAGIC } from './protobuf';
import { lookupMessageOf } from '../schema/proto-loader';
import { encodeMessage, encodeMessageInSlices } from './protobuf-encode';

/**
 * Kubernetes' protobuf wire form of whole objects: "k8s\0", then a runtime.Unknown whose typeMeta
 * names the kind and whose raw field holds the message. Unknown's contentEncoding and contentType
 * are non-pointer strings, written empty (1a 00 22 00), as kube-apiserver writes them.
 */

const UNKNOWN_TRAILER = Buffer.from([0x1a, 0x00, 0x22, 0x00]);

type Json = Record<string, unknown>;

/** The message type of an object from its apiVersion and kind; null when Kubernetes has none. */
export function messageTypeOf(obj: unknown): Type | null {
  const { apiVersion, kind } = (obj ?? {}) as Json;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !kind) return null;
  return lookupMessageOf(apiVersion, kind);
}

/** The bytes before `raw`'s content: magic, typeMeta, and raw's tag and length. */
function unknownHead(apiVersion: string, kind: string, rawLength: number): Buffer {
  const w = Writer.create();
  w.uint32((1 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).string(apiVersion);
  w.uint32((2 << 3) | 2).string(kind);
  w.ldelim();
  w.uint32((2 << 3) | 2).uint32(rawLength);
  return Buffer.concat([PROTOBUF_MAGIC, w.finish()]);
}

function requireType(obj: Json): Type {
  const type = messageTypeOf(obj);
  if (!type) throw new Error(`no protobuf message for ${String(obj.apiVersion)} ${String(obj.kind)}`);
  return type;
}

/** A complete protobuf body around the message bytes of an object of that apiVersion and kind. */
export function protobufEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const apiVersionLength = Buffer.byteLength(apiVersion);
  const kindLength = Buffer.byteLength(kind);
  const typeMetaLength = 1 + varintLength(apiVersionLength) + apiVersionLength + 1 + varintLength(kindLength) + kindLength;
  const headLength = PROTOBUF_MAGIC.length + 1 + varintLength(typeMetaLength) + typeMetaLength + 1 + varintLength(raw.length);
  // One buffer written in place: a Writer and two concatenations cost an eighth of encoding a small object.
  const body = Buffer.allocUnsafe(headLength + raw.length + UNKNOWN_TRAILER.length);
  body.set(PROTOBUF_MAGIC, 0);
  let at = PROTOBUF_MAGIC.length;
  body[at++] = (1 << 3) | 2;
  at = writeVarint(body, at, typeMetaLength);
  body[at++] = (1 << 3) | 2;
  at = writeVarint(body, at, apiVersionLength);
  at += body.write(apiVersion, at);
  body[at++] = (2 << 3) | 2;
  at = writeVarint(body, at, kindLength);
  at += body.write(kind, at);
  body[at++] = (2 << 3) | 2;
  at = writeVarint(body, at, raw.length);
  body.set(raw, at);
  body.set(UNKNOWN_TRAILER, at + raw.length);
  return body;
}

function varintLength(n: number): number {
  let length = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    length++;
  }
  return length;
}

/** Writes `n` as a protobuf varint at `at`; returns the index after it. */
function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[at++] = n;
  return at;
}

/** One object (or list, or Status) as a complete protobuf body. */
export function encodeProtobuf(obj: Json): Buffer {
  return protobufEnvelope(String(obj.apiVersion), String(obj.kind), encodeMessage(requireType(obj), obj));
}

/** encodeProtobuf for a request: long lists are encoded in slices. */
export async function encodeProtobufInSlices(obj: Json, slice: () => Promise<void>): Promise<Buffer> {
  return protobufEnvelope(String(obj.apiVersion), String(obj.kind), await encodeMessageInSlices(requireType(obj), obj, slice));
}

/** The message type of a list's items. */
export function listItemType(list: Json): Type {
  return requireType(list).fields.items.resolvedType as Type;
}

/**
 * A list in parts, so it can be written item by item: the same bytes as encodeProtobuf(list),
 * without one buffer holding the whole body. `itemBytes` encodes one item (callers may cache).
 */
export function protobufListParts(
  list: Json & { items: unknown[] },
  itemBytes: (item: unknown, type: Type) => Uint8Array,
): { head: Buffer; items: Buffer[]; tail: Buffer } {
  const listType = requireType(list);
  const metaType = listType.fields.metadata.resolvedType as Type;
  const itemType = listType.fields.items.resolvedType as Type;
  const w = Writer.create();
  w.uint32((1 << 3) | 2).bytes(encodeMessage(metaType, list.metadata ?? {}));
  const meta = w.finish();
  const items: Buffer[] = [];
  let rawLength = meta.length;
  for (const item of list.items) {
    const bytes = itemBytes(item, itemType);
    const header = Writer.create()
      .uint32((2 << 3) | 2)
      .uint32(bytes.length)
      .finish();
    const framed = Buffer.concat([header, bytes]);
    rawLength += framed.length;
    items.push(framed);
  }
  return { head: Buffer.concat([unknownHead(String(list.apiVersion), String(list.kind), rawLength), meta]), items, tail: UNKNOWN_TRAILER };
}

/**
 * A watch event as kube-apiserver frames it: a 4-byte big-endian length, then a WatchEvent
 * message {type = 1, object = 2 (RawExtension {raw = 1})} whose raw is the complete
 * protobuf body of the object.
 */
export function encodeProtobufWatchEvent(type: string, objectBody: Uint8Array): Buffer {
  const w = Writer.create();
  w.uint32((1 << 3) | 2).string(type);
  w.uint32((2 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).bytes(objectBody);
  w.ldelim();
  const event = w.finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}
