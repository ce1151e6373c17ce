import type { Type } from 'protobufjs';
import { encodeCbor, encodeCborWatchEvent } from '../codec/cbor';
import { encodeJson, jsonText } from '../codec/json';
import type { Encoding } from '../codec/negotiate';
import { encodeProtobuf, encodeProtobufWatchEvent, listItemType, messageTypeOf, protobufEnvelope, protobufListParts } from '../codec/protobuf-write';
import { encodeMessage } from '../codec/protobuf-encode';
import { encodeYaml } from '../codec/yaml';

/**
 * Response values to bytes in every encoding. Objects from the watch cache are shared by every
 * reader and never change, so each one's JSON and protobuf message are computed once and kept
 * as long as the object lives.
 */

type Json = Record<string, unknown>;

const jsonOfObject = new WeakMap<object, Buffer>();
const protobufOfObject = new WeakMap<object, Uint8Array>();

/** The JSON of one shared object as UTF-8 bytes, which lists and watch events copy rather than re-encode. */
function objectJson(object: object): Buffer {
  let json = jsonOfObject.get(object);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(object));
    jsonOfObject.set(object, json);
  }
  return json;
}

/** The protobuf message of one object (no envelope), as lists embed their items. */
export function objectMessage(object: object, type: Type): Uint8Array {
  let bytes = protobufOfObject.get(object);
  if (bytes === undefined) {
    bytes = encodeMessage(type, object);
    protobufOfObject.set(object, bytes);
  }
  return bytes;
}

/**
 * A response body: JSON as text, which Node writes together with the response head (one copy,
 * one write), the others as bytes.
 */
export function encodeBody(value: unknown, encoding: Encoding, pretty: boolean): Buffer | string {
  return encoding === 'json' ? jsonText(value, pretty) : encode(value, encoding, pretty);
}

/** A complete body of one value in one encoding. */
export function encode(value: unknown, encoding: Encoding, pretty: boolean): Buffer {
  switch (encoding) {
    case 'yaml':
      return encodeYaml(value);
    case 'protobuf':
      return encodeProtobuf(value as Json);
    case 'cbor':
      return encodeCbor(value, messageTypeOf(value));
    default:
      return encodeJson(value, pretty);
  }
}

/** A list in pieces that concatenate to its body; null for encodings written whole. */
export function listPieces(list: Json & { items: unknown[] }, encoding: Encoding, pretty: boolean): Iterable<Buffer | string> | null {
  if (encoding === 'json' && !pretty) return jsonListPieces(list);
  if (encoding === 'protobuf') {
    const { head, items, tail } = protobufListParts(list, (item, type) => objectMessage(item as object, type));
    return [head, ...items, tail];
  }
  return null;
}

/**
 * Encodes a Protobuf list's items ahead of listPieces, yielding through `slice` between them: the
 * envelope's length needs every item before the first byte, and each item's message is kept per
 * object, so the pieces then only frame them.
 */
export async function encodeListItemsInSlices(list: Json & { items: unknown[] }, encoding: Encoding, slice: () => Promise<void>): Promise<void> {
  if (encoding !== 'protobuf') return;
  const type = listItemType(list);
  for (const item of list.items) {
    objectMessage(item as object, type);
    await slice();
  }
}

/** Items per JSON piece when a list is streamed: small enough that a piece of large objects fits a loop slice. */
const JSON_PIECE_ITEMS = 100;
const COMMA = 0x2c;

function* jsonListPieces(list: Json & { items: unknown[] }): Iterable<Buffer | string> {
  const { items, ...envelope } = list;
  const head = JSON.stringify(envelope);
  yield `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"items":[`;
  for (let i = 0; i < items.length; i += JSON_PIECE_ITEMS) {
    const parts = items
      .slice(i, i + JSON_PIECE_ITEMS)
      .map((item) => (typeof item === 'object' && item !== null ? objectJson(item) : Buffer.from(JSON.stringify(item))));
    yield joinedWithCommas(parts, i > 0);
  }
  yield ']}\n';
}

/** The parts separated by commas in one buffer (Buffer.copy: a plain memory copy per part). */
function joinedWithCommas(parts: Buffer[], leadingComma: boolean): Buffer {
  let size = leadingComma ? parts.length : parts.length - 1;
  for (const part of parts) size += part.length;
  const out = Buffer.allocUnsafe(size);
  let offset = 0;
  for (let k = 0; k < parts.length; k++) {
    if (k > 0 || leadingComma) out[offset++] = COMMA;
    offset += parts[k].copy(out, offset);
  }
  return out;
}

/** `{"type":"<type>","object":` for each event type, the JSON watch frame's fixed head. */
const watchEventHeads = new Map<string, Buffer>();
const WATCH_EVENT_TAIL = Buffer.from('}\n');

function watchEventHead(type: string): Buffer {
  let head = watchEventHeads.get(type);
  if (!head) {
    head = Buffer.from(`{"type":${JSON.stringify(type)},"object":`);
    watchEventHeads.set(type, head);
  }
  return head;
}

/** One watch event in the stream's framing: JSON lines, length-prefixed Protobuf frames, a CBOR sequence. */
export function encodeWatchEvent(type: string, object: unknown, encoding: Encoding): Buffer {
  switch (encoding) {
    case 'protobuf': {
      const obj = object as Json;
      const messageType = messageTypeOf(obj);
      const body = messageType ? protobufEnvelope(String(obj.apiVersion), String(obj.kind), objectMessage(obj, messageType)) : encodeProtobuf(obj);
      return encodeProtobufWatchEvent(type, body);
    }
    case 'cbor':
      return encodeCborWatchEvent(type, encodeCbor(object, messageTypeOf(object)));
    default:
      if (typeof object !== 'object' || object === null) return encodeJson({ type, object });
      return Buffer.concat([watchEventHead(type), objectJson(object), WATCH_EVENT_TAIL]);
  }
}
