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

/** Writes a complete response body. */
export function writeBody(res: ServerResponse, code: number, contentType: string, body: Buffer): void {
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

export function writeEncoded(res: ServerResponse, code: number, value: unknown, output: OutputChoice, pretty: boolean): void {
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
