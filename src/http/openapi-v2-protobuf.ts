import path from 'node:path';
import { existsSync } from 'node:fs';
import { dump } from 'js-yaml';
import { Root, type Type } from 'protobufjs';

/**
 * /openapi/v2 in Protobuf (gnostic's openapi.v2.Document), the form client-go asks for first
 * (kubectl's client-side validation of kinds its OpenAPI v3 check cannot place reads it). The
 * definitions are carried; paths are not, as no client reads them from this form.
 */

/** The media type answered; clients also ask with "@" for the last dot, which is not a valid media type to send back. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** Whether an Accept header asks for it, in either spelling. */
export function acceptsOpenApiV2Protobuf(accept: string | undefined): boolean {
  return !!accept && /application\/com\.github\.proto-openapi\.spec\.v2[@.]v1\.0\+protobuf/.test(accept);
}

const PROTO_FILE = ['../../proto', '../../../proto'].map((p) => path.resolve(__dirname, p, 'openapiv2/OpenAPIv2.proto')).find((p) => existsSync(p))!;

let documentType: Type | null = null;

function documentMessage(): Type {
  documentType ??= new Root().loadSync(PROTO_FILE, { keepCase: true }).lookupType('openapi.v2.Document');
  return documentType;
}

type Json = Record<string, unknown>;

/** A value gnostic keeps as YAML text (defaults, examples, enum values, extensions). */
const yamlAny = (value: unknown): Json => ({ yaml: dump(value, { lineWidth: -1, noRefs: true }) });

const SCALARS: Record<string, string> = {
  format: 'format',
  title: 'title',
  description: 'description',
  multipleOf: 'multiple_of',
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
  readOnly: 'read_only',
};

function schemaMessage(schema: Json): Json {
  const out: Json = {};
  const extensions: Json[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key in SCALARS) out[SCALARS[key]] = value;
    else if (key === '$ref') out._ref = value;
    else if (key === 'type') out.type = { value: Array.isArray(value) ? value : [value] };
    else if (key === 'required') out.required = value;
    else if (key === 'enum') out.enum = (value as unknown[]).map(yamlAny);
    else if (key === 'default' || key === 'example') out[key] = yamlAny(value);
    else if (key === 'items') out.items = { schema: (Array.isArray(value) ? value : [value]).map((s) => schemaMessage(s as Json)) };
    else if (key === 'allOf') out.all_of = (value as Json[]).map(schemaMessage);
    else if (key === 'properties') out.properties = { additional_properties: namedSchemas(value as Record<string, Json>) };
    else if (key === 'additionalProperties')
      out.additional_properties = typeof value === 'boolean' ? { boolean: value } : { schema: schemaMessage(value as Json) };
    else if (key.startsWith('x-')) extensions.push({ name: key, value: yamlAny(value) });
  }
  if (extensions.length > 0) out.vendor_extension = extensions;
  return out;
}

function namedSchemas(schemas: Record<string, Json>): Json[] {
  return Object.entries(schemas).map(([name, value]) => ({ name, value: schemaMessage(value) }));
}

/** The v2 document's version, info and definitions, encoded as gnostic's Document. */
export function encodeOpenApiV2(document: Json): Buffer {
  const message = documentMessage();
  const info = (document.info ?? {}) as Json;
  const payload = {
    swagger: document.swagger,
    info: { title: info.title, version: info.version },
    definitions: { additional_properties: namedSchemas((document.definitions ?? {}) as Record<string, Json>) },
  };
  return Buffer.from(message.encode(message.fromObject(payload)).finish());
}
