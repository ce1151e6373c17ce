import type { ServerResponse } from 'node:http';
import { badRequest, StatusError } from '../api/errors';
import { field, fieldErrorMessage } from '../api/field-errors';
import type { KubeList, KubeObject, Status } from '../api/types';
import { negotiateError, type Encoding, type OutputChoice } from '../codec/negotiate';
import type { ServedKind } from '../registry/resource-definition';
import { toTable, type IncludeObject } from '../registry/table';
import { StreamedBody, writeWholeBody } from './body-writer';
import type { RestStore } from '../registry/resource-registry';
import type { ResourceRequest } from './handlers/context';
import { encodeBody, encodeListItemsInSlices, listPieces } from './encode';
import { loopSlices } from '../api/loop-slices';
import { jsonInSlices } from '../codec/json-in-slices';
import { yamlInSlices } from '../codec/yaml-in-slices';
import { smallInOneGo } from '../codec/large-values';
import { encodeProtobufInSlices, messageTypeOf } from '../codec/protobuf-write';
import { encodeCborInSlices } from '../codec/cbor';

/** Lists longer than this are written item by item rather than as one buffer. */
const STREAM_LIST_ITEMS = 500;

/** Writes a complete response body (health, metrics, OpenAPI). */
export function writeBody(res: ServerResponse, code: number, contentType: string, body: Buffer, compress = false): void {
  writeWholeBody(res, code, contentType, body, compress);
}

/**
 * Writes a value in the negotiated encoding; large JSON and Protobuf lists are streamed piece by
 * piece, yielding to the event loop between pieces once a slice's budget is spent (as kube's list
 * encoding streams items, issue 25: no response holds the loop while it encodes); a large object's
 * JSON, YAML, Protobuf or CBOR is encoded in slices before it is written.
 */
export async function writeEncoded(res: ServerResponse, code: number, value: unknown, output: OutputChoice, pretty: boolean, compress = false): Promise<void> {
  const items = (value as { items?: unknown }).items;
  if (Array.isArray(items) && items.length > STREAM_LIST_ITEMS) {
    const list = value as { items: unknown[] } & Record<string, unknown>;
    const slice = loopSlices();
    await encodeListItemsInSlices(list, output.encoding, slice);
    const pieces = listPieces(list, output.encoding, pretty);
    if (pieces) {
      const body = new StreamedBody(res, code, output.contentType, compress);
      for (const piece of pieces) {
        // A client gone mid-list needs no more of it.
        if (res.destroyed) return;
        body.write(piece);
        await slice();
      }
      body.end();
      return;
    }
  }
  // A large object's JSON, YAML, Protobuf or CBOR (a Deployment's 20,000 containers) is encoded in slices as well.
  const body =
    output.encoding === 'json'
      ? await jsonInSlices(value, pretty, loopSlices())
      : output.encoding === 'yaml'
        ? await yamlInSlices(value, loopSlices())
        : output.encoding === 'protobuf' && !smallInOneGo(value)
          ? await encodeProtobufInSlices(value as Record<string, unknown>, loopSlices())
          : output.encoding === 'cbor'
            ? await encodeCborInSlices(value, messageTypeOf(value), loopSlices())
            : encodeBody(value, output.encoding, pretty);
  writeWholeBody(res, code, output.contentType, body, compress);
}

/**
 * An error in a format the client reads, negotiated as kube-apiserver does for errors (any served
 * type, no conversion); when no Accept clause fits, the Status as indented JSON.
 */
export function writeError(res: ServerResponse, err: StatusError, accept: string | undefined, encodings: Encoding[], pretty: boolean, compress: boolean): void {
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  const output = negotiateError(accept, encodings);
  if (!output) {
    writeWholeBody(res, err.code, 'application/json', Buffer.from(JSON.stringify(err.status, null, 2)), false);
    return;
  }
  writeWholeBody(res, err.code, output.contentType, encodeBody(err.status, output.encoding, pretty || output.pretty), compress);
}

function isStatus(value: KubeObject | KubeList | Status): value is Status {
  return (value as Status).kind === 'Status';
}

export function isList(value: KubeObject | KubeList | Status): value is KubeList {
  return Array.isArray((value as KubeList).items);
}

export function includeObjectParam(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject') ?? '';
  if (v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  // optionsForTransform over ValidateTableOptions.
  const error = field.invalid('includeObject', v, "must be 'Metadata', 'Object', 'None', or empty");
  throw badRequest(`Unable to convert to Table as requested: ${fieldErrorMessage(error)}`);
}

/** How kube-apiserver's errors name the stored type: its internal Go type, e.g. *core.PodList. */
function internalTypeName(def: ServedKind, list: boolean): string {
  const pkg = def.group === '' ? 'core' : def.group.split('.')[0];
  return `*${pkg}.${list ? def.listKind : def.kind}`;
}

function notAcceptableConversion(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message);
}

/** Converts a result to the representation the client negotiated (object, Table, metadata only). */
export function present(def: ServedKind, value: KubeObject | KubeList | Status, output: OutputChoice, query: URLSearchParams): unknown {
  if (isStatus(value)) return value;
  const rep = output.representation;
  if (rep.kind === 'object' || rep.kind === 'APIGroupDiscoveryList') return value;
  const apiVersion = `${rep.group}/${rep.version}`;
  if (rep.kind === 'Table') {
    const include = includeObjectParam(query);
    if (isList(value)) return toTable(def, value.items, value.metadata, include, apiVersion);
    return toTable(def, [value], { resourceVersion: value.metadata.resourceVersion }, include, apiVersion);
  }
  if (rep.kind === 'PartialObjectMetadataList') {
    if (!isList(value)) {
      throw notAcceptableConversion(`you requested PartialObjectMetadataList, but the requested object is not a list (${internalTypeName(def, false)})`);
    }
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion,
      metadata: value.metadata,
      items: value.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion, metadata: o.metadata })),
    };
  }
  if (isList(value)) {
    throw notAcceptableConversion(`you requested PartialObjectMetadata, but the requested object is a list (${internalTypeName(def, true)})`);
  }
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: value.metadata };
}

/** A resource handler's answer: the result in the negotiated representation and encoding. */
export function respond(r: ResourceRequest<RestStore>, code: number, value: KubeObject | KubeList | Status): Promise<void> {
  return writeEncoded(r.res, code, present(r.served.kind, value, r.output, r.query), r.output, r.pretty, r.compress);
}
