import { badRequest } from '../api/errors';
import { apiVersionOf, isPlainObject, type GroupVersionKind, type KubeObject } from '../api/types';
import { DecodeError } from '../codec/decode-error';
import { decodeCbor } from '../codec/cbor';
import { decodeJson, decodeJsonInSlices, parseJsonText } from '../codec/json';
import { negotiateInput, type Encoding } from '../codec/negotiate';
import { decodeProtobuf } from '../codec/protobuf';
import { decodeYaml } from '../codec/yaml';
import { typedDecode, typedDecodeInSlices } from '../schema/typed-decode';
import type { ObjectNode } from '../schema/typed-schema';
import { unexpectedGroupVersion, withDefaultGroupVersion } from './body-group-version';
import { unknownConversion, unregisteredKind } from './patched-kind';
import { duplicateFieldErrors, jsonDuplicateFieldErrorsInSlices, unknownFieldErrors } from './field-validation';
import { repeatsNoKey } from '../codec/duplicate-keys';
import type { BodyDecoder } from './body-decoder';
import type { FieldValidation } from './query';

/** summarizeData: what a 400 shows of a body it could not read. */
function summarize(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  if (body[0] === 0x7b) return body.length > 30 ? `${body.subarray(0, 30).toString()} ...` : body.toString();
  return body.length > 30 ? `${body.subarray(0, 30).toString('hex')} ...` : body.toString('hex');
}

/** The name encoding/json gives a JSON value in its "cannot unmarshal" errors. */
export function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/**
 * SimpleMetaFactory.Interpret's error for a JSON object whose apiVersion or kind is not a string.
 * encoding/json leaves a string as it was for a null: the endpoint's version and kind stand in.
 */
export function typeMetaFieldsUnreadable(value: Record<string, unknown>): string | undefined {
  for (const key of ['apiVersion', 'kind'] as const) {
    if (value[key] !== undefined && value[key] !== null && typeof value[key] !== 'string') {
      return `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(value[key])} into Go struct field .${key} of type string`;
    }
  }
  return undefined;
}

/** SimpleMetaFactory.Interpret's error for JSON that is not an object: json.Unmarshal of it into the struct that finds apiVersion and kind. */
export function typeMetaUnreadable(value: unknown): string {
  return `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
}

export function decodeBody(body: Buffer, encoding: Encoding): unknown {
  switch (encoding) {
    case 'json':
      return decodeJson(body);
    case 'yaml':
      return decodeYaml(body);
    case 'protobuf':
      return decodeProtobuf(body);
    case 'cbor':
      return decodeCbor(body);
  }
}

/** Shapes of metadata fields that the machinery reads before any schema check. */
const META_SHAPES: Record<string, 'string' | 'stringMap' | 'stringList' | 'number' | 'list'> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  uid: 'string',
  resourceVersion: 'string',
  labels: 'stringMap',
  annotations: 'stringMap',
  finalizers: 'stringList',
  ownerReferences: 'list',
  managedFields: 'list',
  generation: 'number',
  deletionGracePeriodSeconds: 'number',
};

const GO_TYPES = { string: 'string', stringMap: 'map[string]string', stringList: '[]string', number: 'int64', list: 'array' } as const;

const META_SHAPE_ENTRIES = Object.entries(META_SHAPES);

/** A null element decodes as Go's zero value, "" (typedDecode writes it). */
const isStringOrNull = (x: unknown): boolean => x === null || typeof x === 'string';

function metadataTypeError(meta: Record<string, unknown>): string | null {
  for (const [key, shape] of META_SHAPE_ENTRIES) {
    const v = meta[key];
    if (v === undefined || v === null) continue;
    const goType = GO_TYPES[shape];
    const ok =
      shape === 'string'
        ? typeof v === 'string'
        : shape === 'number'
          ? typeof v === 'number' && Number.isInteger(v)
          : shape === 'stringMap'
            ? isPlainObject(v) && Object.values(v).every(isStringOrNull)
            : shape === 'stringList'
              ? Array.isArray(v) && v.every(isStringOrNull)
              : Array.isArray(v) && v.every(isPlainObject);
    if (!ok) return `json: cannot unmarshal ${jsonTypeName(v)} into Go struct field ObjectMeta.metadata.${key} of type ${goType}`;
  }
  return null;
}

export interface DecodedObject {
  object: KubeObject;
  /** Unknown and duplicate fields, for fieldValidation to report; the object no longer has them. */
  fieldErrors: string[];
}

/**
 * A body this small is decoded in one go: its scans and schema walk take well under a millisecond,
 * and the walks in slices would only add their generators' cost to every small create.
 */
const SLICED_BODY_BYTES = 64 * 1024;

/**
 * Reads a request body as an object of the endpoint's kind, checked against its schema as a strict
 * decoder would: values of the wrong type are a 400, unknown fields are removed and reported. A
 * large JSON body's scans and its schema walk run in slices between other requests, a large YAML
 * or CBOR body is parsed by `bodyDecoder` off the event loop (issue 25).
 */
export async function decodeObject(
  body: Buffer,
  contentType: string | undefined,
  gvk: GroupVersionKind & { alsoDecodes?: string[] },
  encodings: Encoding[],
  schema: ObjectNode | null,
  /** A built-in kind, decoded by its scheme; custom resources are decoded unstructured. */
  typed: boolean,
  validation: FieldValidation,
  slice: () => Promise<void>,
  bodyDecoder: BodyDecoder,
): Promise<DecodedObject> {
  const encoding = negotiateInput(contentType, encodings);
  const expected = apiVersionOf(gvk);
  const sliced = body.length >= SLICED_BODY_BYTES;
  const text = sliced && encoding === 'json' ? body.toString('utf8') : null;
  let value: unknown;
  let duplicates: string[] | null = null;
  try {
    if (encoding === 'yaml' || encoding === 'cbor') ({ value, duplicates } = await bodyDecoder.decode({ body, encoding, duplicates: validation !== 'Ignore' }));
    else if (text !== null) value = await decodeJsonInSlices(text, slice);
    else if (encoding === 'json') {
      const parsed = parseJsonText(body.toString('utf8'));
      value = parsed.value;
      // Counted before anything below adds metadata, apiVersion or kind to the value; a body that
      // repeats a key is scanned again below for the paths.
      if (validation !== 'Ignore' && repeatsNoKey(value, parsed.members)) duplicates = [];
    } else value = decodeBody(body, encoding);
  } catch (err) {
    if (err instanceof DecodeError) {
      throw badRequest(`the object provided is unrecognized (must be of type ${gvk.kind}): ${err.message} (${summarize(body)})`);
    }
    throw err;
  }
  if (!isPlainObject(value)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${gvk.kind}): ${typeMetaUnreadable(value)} (${summarize(body)})`);
  }
  const typeMeta = typeMetaFieldsUnreadable(value);
  if (typeMeta) throw badRequest(typeMeta);
  const named = (value.apiVersion as string | null | undefined) ?? '';
  const kind = (value.kind as string | undefined) || gvk.kind;
  let apiVersion = named || expected;
  // json.Serializer.Decode reads JSON and YAML bodies' apiVersion so (the CBOR serializer does not)
  if (encoding === 'json' || encoding === 'yaml') {
    const unexpected = unexpectedGroupVersion(named);
    if (unexpected) throw badRequest(`the object provided is unrecognized (must be of type ${gvk.kind}): ${unexpected} (${summarize(body)})`);
    if (typed) {
      const gv = withDefaultGroupVersion(named, gvk);
      if (gv.version === '')
        throw badRequest(`${kind} in version "" cannot be handled as a ${gvk.kind}: Object 'apiVersion' is missing in '${body.toString('utf8')}'`);
      apiVersion = apiVersionOf(gv);
    }
  }
  const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
  if (kind !== gvk.kind || (apiVersion !== expected && !gvk.alsoDecodes?.includes(apiVersion))) {
    // json.Serializer.Decode makes the kind in the version the body names (Scheme.New), then converts
    // it to the served one; transformDecodeError words what fails.
    const cause = (typed ? unregisteredKind(apiVersion, kind, gvk) : undefined) ?? (kind !== gvk.kind ? unknownConversion(apiVersion, kind, gvk) : undefined);
    if (cause !== undefined) throw badRequest(`${kind} in version "${version}" cannot be handled as a ${gvk.kind}: ${cause}`);
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
  }
  if (value.metadata === undefined || value.metadata === null) value.metadata = {};
  if (!isPlainObject(value.metadata)) {
    throw badRequest(
      `${gvk.kind} in version "${version}" cannot be handled as a ${gvk.kind}: json: cannot unmarshal ${jsonTypeName(value.metadata)} into Go struct field ${gvk.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  const metaError = metadataTypeError(value.metadata);
  if (metaError) throw badRequest(`${gvk.kind} in version "${version}" cannot be handled as a ${gvk.kind}: ${metaError}`);
  // An older version of the same shape converts by its apiVersion alone.
  value.apiVersion = expected;
  value.kind = kind;
  const fieldErrors =
    validation === 'Ignore' ? [] : (duplicates ?? (text === null ? duplicateFieldErrors(body, encoding) : await jsonDuplicateFieldErrorsInSlices(text, slice)));
  if (schema) {
    const report = sliced ? await typedDecodeInSlices(value, schema, slice) : typedDecode(value, schema);
    if (report.typeError) throw badRequest(`${gvk.kind} in version "${version}" cannot be handled as a ${gvk.kind}: ${report.typeError}`);
    fieldErrors.push(...unknownFieldErrors(report.unknown));
  }
  return { object: value as KubeObject, fieldErrors };
}
