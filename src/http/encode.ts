import type { Type } from 'protobufjs';
import { encodeCbor, encodeCborWatchEvent } from '../codec/cbor';
import { encodeJson, jsonText } from '../codec/json';
import type { Encoding } from '../codec/negotiate';
import { encodeProtobuf, encodeProtobufWatchEvent, listItemType, messageTypeOf, protobufEnvelope, protobufListParts } from '../codec/protobuf-write';
import { encodeMessage } from '../codec/protobuf-encode';
import { encodeYaml } from '../codec/yaml';
import { jsonItemPieces } from './json-list-runs';
import { objectJson } from './object-json';

/**
 * Response values to bytes in every encoding. Objects from the watch cache are shared by every
 * reader and never change, so each one's JSON (`object-json.ts`, and runs of a list's items in
 * `json-list-runs.ts`) and protobuf message are computed once and kept as long as the object lives.
 */

type Json = Record<string, unknown>;

const protobufOfObject = new WeakMap<object, Uint8Array>();

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

function* jsonListPieces(list: Json & { items: unknown[] }): Iterable<Buffer | string> {
  const { items, ...envelope } = list;
  const head = JSON.stringify(envelope);
  yield `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"items":[`;
  yield* jsonItemPieces(items);
  yield ']}\n';
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
