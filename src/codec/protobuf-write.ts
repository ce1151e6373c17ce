import type { Type } from 'protobufjs';
import { PROTOBUF_MAGIC } from './protobuf';
import { lookupMessageOf } from '../schema/proto-loader';
import { encodeMessageInSlices, encodeMessageTo } from './protobuf-encode';
import { encodeWith, varintLength, writeVarintAt, type ProtoWriter } from './proto-writer';
import { smallInOneGo } from './large-values';

/**
 * Kubernetes' protobuf wire form of whole objects: "k8s\0", then a runtime.Unknown whose typeMeta
 * names the kind and whose raw field holds the message. Unknown's contentEncoding and contentType
 * are non-pointer strings, written empty (1a 00 22 00), as kube-apiserver writes them.
 */

const UNKNOWN_TRAILER = Buffer.from([0x1a, 0x00, 0x22, 0x00]);
const FRAME_LENGTH_PLACEHOLDER = Buffer.alloc(4);

const TYPE_META_TAG = (1 << 3) | 2;
const API_VERSION_TAG = (1 << 3) | 2;
const KIND_TAG = (2 << 3) | 2;
const RAW_TAG = (2 << 3) | 2;

type Json = Record<string, unknown>;

/** The message type of an object from its apiVersion and kind; null when Kubernetes has none. */
export function messageTypeOf(obj: unknown): Type | null {
  const { apiVersion, kind } = (obj ?? {}) as Json;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !kind) return null;
  return lookupMessageOf(apiVersion, kind);
}

/** The bytes before raw's length: magic, typeMeta, and raw's tag. */
function writeHead(w: ProtoWriter, apiVersion: string, kind: string): void {
  w.raw(PROTOBUF_MAGIC);
  w.uint32(TYPE_META_TAG);
  const typeMeta = w.begin();
  w.uint32(API_VERSION_TAG);
  w.string(apiVersion);
  w.uint32(KIND_TAG);
  w.string(kind);
  w.end(typeMeta);
  w.uint32(RAW_TAG);
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
  // One buffer written in place, every length known ahead: the message (a cached one, or a large
  // one encoded in slices) is copied once, and no shared writer grows to its size.
  const body = Buffer.allocUnsafe(headLength + raw.length + UNKNOWN_TRAILER.length);
  body.set(PROTOBUF_MAGIC, 0);
  let at = PROTOBUF_MAGIC.length;
  body[at++] = TYPE_META_TAG;
  at = writeVarintAt(body, at, typeMetaLength);
  body[at++] = API_VERSION_TAG;
  at = writeVarintAt(body, at, apiVersionLength);
  at += body.write(apiVersion, at);
  body[at++] = KIND_TAG;
  at = writeVarintAt(body, at, kindLength);
  at += body.write(kind, at);
  body[at++] = RAW_TAG;
  at = writeVarintAt(body, at, raw.length);
  body.set(raw, at);
  body.set(UNKNOWN_TRAILER, at + raw.length);
  return body;
}

/** One object (or list, or Status) as a complete protobuf body. */
export function encodeProtobuf(obj: Json): Buffer {
  const type = requireType(obj);
  // the envelope and the message in one writer: the message is not copied into an envelope
  return encodeWith((w) => {
    writeHead(w, String(obj.apiVersion), String(obj.kind));
    const raw = w.begin();
    encodeMessageTo(w, type, obj);
    w.end(raw);
    w.raw(UNKNOWN_TRAILER);
  });
}

/**
 * encodeProtobuf for a request: long lists are encoded in slices. An object without a large list or
 * map anywhere (most) is encoded at once, without the schema walk that looks for long lists.
 */
export async function encodeProtobufInSlices(obj: Json, slice: () => Promise<void>): Promise<Buffer> {
  if (smallInOneGo(obj)) return encodeProtobuf(obj);
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
  const meta = encodeWith((w) => {
    w.uint32((1 << 3) | 2);
    const start = w.begin();
    encodeMessageTo(w, metaType, list.metadata ?? {});
    w.end(start);
  });
  const items: Buffer[] = [];
  let rawLength = meta.length;
  for (const item of list.items) {
    const bytes = itemBytes(item, itemType);
    const framed = Buffer.allocUnsafe(1 + varintLength(bytes.length) + bytes.length);
    framed[0] = (2 << 3) | 2;
    framed.set(bytes, writeVarintAt(framed, 1, bytes.length));
    rawLength += framed.length;
    items.push(framed);
  }
  const head = encodeWith((w) => {
    writeHead(w, String(list.apiVersion), String(list.kind));
    w.uint32(rawLength);
    w.raw(meta);
  });
  return { head, items, tail: UNKNOWN_TRAILER };
}

/**
 * A watch event as kube-apiserver frames it: a 4-byte big-endian length, then a WatchEvent
 * message {type = 1, object = 2 (RawExtension {raw = 1})} whose raw is the complete
 * protobuf body of the object.
 */
export function encodeProtobufWatchEvent(type: string, objectBody: Uint8Array): Buffer {
  const frame = encodeWith((w) => {
    w.raw(FRAME_LENGTH_PLACEHOLDER);
    w.uint32((1 << 3) | 2);
    w.string(type);
    w.uint32((2 << 3) | 2);
    const object = w.begin();
    w.uint32((1 << 3) | 2);
    w.bytes(objectBody);
    w.end(object);
  });
  frame.writeUInt32BE(frame.length - 4, 0);
  return frame;
}
