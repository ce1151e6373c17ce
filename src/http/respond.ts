import type { ServerResponse } from 'node:http';
import { badRequest, notAcceptable, type StatusError } from '../api/errors';
import type { KubeList, KubeObject, Status } from '../api/types';
import { encodeJson } from '../codec/json';
import { mediaTypeOf, type Encoding, type OutputChoice } from '../codec/negotiate';
import { encodeYaml } from '../codec/yaml';
import type { ResourceDefinition } from '../registry/resource-definition';
import { toTable, type IncludeObject } from '../registry/table';

export function encode(value: unknown, encoding: Encoding, pretty: boolean): Buffer {
  switch (encoding) {
    case 'yaml':
      return encodeYaml(value);
    default:
      return encodeJson(value, pretty);
  }
}

/**
 * Watch events of one object go to every watcher of it: its JSON is computed once and kept as
 * long as the object lives (the watch cache shares one object among all watchers).
 */
const jsonOfObject = new WeakMap<object, string>();

function objectJson(object: object): string {
  let json = jsonOfObject.get(object);
  if (json === undefined) {
    json = JSON.stringify(object);
    jsonOfObject.set(object, json);
  }
  return json;
}

export function encodeWatchEvent(type: string, object: unknown, encoding: Encoding): Buffer {
  if (encoding !== 'json' || typeof object !== 'object' || object === null) return encode({ type, object }, encoding, false);
  return Buffer.from(`{"type":${JSON.stringify(type)},"object":${objectJson(object)}}\n`);
}

/** Items per chunk when a large collection is streamed. */
const LIST_CHUNK_ITEMS = 500;

/**
 * Writes a collection item by item in chunks, reusing each item's JSON: a list of thousands of
 * objects is never built as one string, and objects served before are not serialised again.
 */
function writeJsonList(res: ServerResponse, code: number, contentType: string, list: { items: unknown[] } & Record<string, unknown>): void {
  const { items, ...envelope } = list;
  const head = JSON.stringify(envelope);
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  res.write(`${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"items":[`);
  for (let i = 0; i < items.length; i += LIST_CHUNK_ITEMS) {
    const chunk = items.slice(i, i + LIST_CHUNK_ITEMS).map((item) => (typeof item === 'object' && item !== null ? objectJson(item) : JSON.stringify(item)));
    res.write(`${i > 0 ? ',' : ''}${chunk.join(',')}`);
  }
  res.end(']}\n');
}

/** Writes a complete response body. */
export function writeBody(res: ServerResponse, code: number, contentType: string, body: Buffer): void {
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

export function writeEncoded(res: ServerResponse, code: number, value: unknown, output: OutputChoice, pretty: boolean): void {
  const items = (value as { items?: unknown }).items;
  if (output.encoding === 'json' && !pretty && Array.isArray(items) && items.length > LIST_CHUNK_ITEMS) {
    writeJsonList(res, code, output.contentType, value as { items: unknown[] } & Record<string, unknown>);
    return;
  }
  writeBody(res, code, output.contentType, encode(value, output.encoding, pretty));
}

/** Errors are always written in a format the client reads: the negotiated one, else JSON. */
export function writeError(res: ServerResponse, err: StatusError, output: OutputChoice | null, pretty: boolean): void {
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  const encoding = output?.representation.kind === 'object' ? output.encoding : 'json';
  writeBody(res, err.code, mediaTypeOf(encoding), encode(err.status, encoding, pretty));
}

function isStatus(value: KubeObject | KubeList | Status): value is Status {
  return (value as Status).kind === 'Status';
}

export function isList(value: KubeObject | KubeList | Status): value is KubeList {
  return Array.isArray((value as KubeList).items);
}

export function includeObjectParam(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject') ?? '';
  if (v === '' ) return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`unrecognized includeObject value: ${JSON.stringify(v)}`);
}

/** Converts a result to the representation the client negotiated (object, Table, metadata only). */
export function present(
  def: ResourceDefinition,
  value: KubeObject | KubeList | Status,
  output: OutputChoice,
  query: URLSearchParams,
): unknown {
  if (isStatus(value)) return value;
  const rep = output.representation;
  if (rep.kind === 'object' || rep.kind === 'APIGroupDiscoveryList') return value;
  const apiVersion = `${rep.group}/${rep.version}`;
  if (rep.kind === 'Table') {
    const include = includeObjectParam(query);
    if (isList(value)) return toTable(def, value.items, value.metadata, include, apiVersion);
    return toTable(def, [value], { resourceVersion: value.metadata.resourceVersion }, include, apiVersion);
  }
  if (isList(value)) {
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion,
      metadata: value.metadata,
      items: value.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion, metadata: o.metadata })),
    };
  }
  if (rep.kind === 'PartialObjectMetadataList') throw notAcceptable(['application/json', 'application/yaml']);
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: value.metadata };
}
