import type { Field, Type } from 'protobufjs';
import { isInlineField, lookupMessage, protoType } from './proto-loader';
import type { FieldPatchMeta, PatchSchema } from '../patch/strategic-merge';
import type { GroupVersionKind } from '../api/types';
import type { ServedKind } from '../registry/resource-definition';
import { FIELD_FACTS, type FieldFacts } from './field-facts';
import { STRING_LIST_MESSAGES } from '../generated/api-facts';
import { compareGoStrings } from '../api/go-string-order';

/**
 * Structural schemas of the built-in kinds, derived once from the .proto files (structure, names)
 * and the field facts (list semantics, required fields, enums). Strategic merge, OpenAPI and
 * validation all read them from here.
 */

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Messages whose JSON is not an object of their fields, with their OpenAPI form. */
const SPECIAL_SCHEMAS: Record<string, Record<string, unknown>> = {
  [`${META}.Time`]: { type: 'string', format: 'date-time' },
  [`${META}.MicroTime`]: { type: 'string', format: 'date-time' },
  [`${META}.Duration`]: { type: 'string' },
  [`${META}.FieldsV1`]: { type: 'object' },
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true },
  'k8s.io.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
  'k8s.io.apimachinery.pkg.runtime.RawExtension': { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
};

export function typeName(type: Type): string {
  return type.fullName.replace(/^\./, '');
}

/** A message whose JSON is not an object of its fields: the special types, and the named []string ones. */
export function isSpecial(type: Type): boolean {
  const name = typeName(type);
  return name in SPECIAL_SCHEMAS || STRING_LIST_MESSAGES.includes(name);
}

export function factsOf(type: Type, fieldName: string): FieldFacts {
  return FIELD_FACTS[typeName(type)]?.[fieldName] ?? {};
}

/** "k8s.io.api.core.v1.Pod" -> "io.k8s.api.core.v1.Pod", as Kubernetes names OpenAPI definitions. */
export function definitionName(protoName: string): string {
  // OpenAPI names follow the Go package path (io.k8s.kube-aggregator...), which go-to-protobuf's package names spell with underscores.
  return protoName.replace(/^k8s\.io\./, 'io.k8s.').replace(/^io\.k8s\.kube_aggregator\./, 'io.k8s.kube-aggregator.');
}

function messageField(field: Field): Type | null {
  return (field.resolvedType as Type | null) ?? null;
}

/** A field of a message, looking through inlined messages. */
function findField(type: Type, name: string): { owner: Type; field: Field } | null {
  const own = type.fields[name];
  if (own && Object.prototype.hasOwnProperty.call(type.fields, name) && !isInlineField(type, own)) return { owner: type, field: own };
  for (const f of type.fieldsArray) {
    if (isInlineField(type, f)) {
      const found = findField(f.resolvedType as Type, name);
      if (found) return found;
    }
  }
  return null;
}

class ProtoPatchSchema implements PatchSchema {
  constructor(private readonly type: Type) {}

  field(name: string): FieldPatchMeta | null {
    const found = findField(this.type, name);
    if (!found) return null;
    const { owner, field: f } = found;
    const facts = factsOf(owner, name);
    const valueType = messageField(f);
    return {
      strategies: facts.patchStrategy ? facts.patchStrategy.split(',') : [],
      mergeKey: facts.patchMergeKey,
      schema: valueType && !isSpecial(valueType) ? patchSchemaOf(valueType) : null,
    };
  }
}

const patchSchemas = new Map<Type, ProtoPatchSchema>();

function patchSchemaOf(type: Type): ProtoPatchSchema {
  let schema = patchSchemas.get(type);
  if (!schema) {
    schema = new ProtoPatchSchema(type);
    patchSchemas.set(type, schema);
  }
  return schema;
}

/**
 * A kind without a .proto message (apiextensions' CustomResourceDefinition; custom resources, which
 * no strategic merge patch reaches): ObjectMeta's tags for its metadata, the rest free-form. That is
 * all the CRD's Go type tags a patch reaches: its one other, JSONSchemaProps'
 * x-kubernetes-validations, is below spec.versions, a list a patch replaces whole.
 */
const METADATA_ONLY_PATCH_SCHEMA: PatchSchema = {
  field: (name) => (name === 'metadata' ? { strategies: [], schema: patchSchemaOf(protoType(`${META}.ObjectMeta`)) } : null),
};

/** The strategic-merge schema of a kind. */
export function patchSchemaFor(gvk: GroupVersionKind): PatchSchema {
  const type = lookupMessage(gvk);
  return type ? patchSchemaOf(type) : METADATA_ONLY_PATCH_SCHEMA;
}

function scalarSchema(protoType: string): Record<string, unknown> {
  switch (protoType) {
    case 'string':
      return { type: 'string' };
    case 'bool':
      return { type: 'boolean' };
    case 'int32':
    case 'uint32':
    case 'sint32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
    case 'uint64':
    case 'sint64':
      return { type: 'integer', format: 'int64' };
    case 'double':
    case 'float':
      return { type: 'number', format: 'double' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    default:
      return {};
  }
}

/** A field's OpenAPI v3 schema, registering the messages it refers to in `out`. */
function fieldSchema(owner: Type, field: Field, out: Record<string, unknown>): Record<string, unknown> {
  const facts = factsOf(owner, field.name);
  const message = messageField(field);
  // A named []string (ExtraValue, Verbs) is described inline as the list it is in JSON, as kube's openapi-gen does.
  const stringList = message !== null && STRING_LIST_MESSAGES.includes(typeName(message));
  const valueType = stringList ? null : message;
  const value = stringList
    ? { type: 'array', items: { type: 'string', default: '' } }
    : valueType
      ? refTo(valueType, out)
      : { ...scalarSchema(field.type), ...(facts.enum ? { enum: facts.enum } : {}) };
  let schema: Record<string, unknown>;
  if (field.map) schema = { type: 'object', additionalProperties: value };
  else if (field.repeated) schema = { type: 'array', items: value };
  else schema = valueType ? { allOf: [value] } : value;
  if (facts.listType) schema['x-kubernetes-list-type'] = facts.listType;
  if (facts.listMapKeys) schema['x-kubernetes-list-map-keys'] = facts.listMapKeys;
  if (facts.mapType) schema['x-kubernetes-map-type'] = facts.mapType;
  if (facts.patchStrategy) schema['x-kubernetes-patch-strategy'] = facts.patchStrategy;
  if (facts.patchMergeKey) schema['x-kubernetes-patch-merge-key'] = facts.patchMergeKey;
  return schema;
}

function refTo(type: Type, out: Record<string, unknown>): Record<string, unknown> {
  const name = definitionName(typeName(type));
  if (!(name in out)) {
    out[name] = {};
    out[name] = messageSchema(type, out);
  }
  return { $ref: `#/components/schemas/${name}` };
}

function messageSchema(type: Type, out: Record<string, unknown>): Record<string, unknown> {
  const special = SPECIAL_SCHEMAS[typeName(type)];
  if (special) return special;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const fields = (t: Type): { owner: Type; field: Field }[] =>
    t.fieldsArray.flatMap((f) => (isInlineField(t, f) ? fields(f.resolvedType as Type) : [{ owner: t, field: f }]));
  for (const { owner, field } of fields(type).sort((a, b) => compareGoStrings(a.field.name, b.field.name))) {
    properties[field.name] = fieldSchema(owner, field, out);
    if (factsOf(owner, field.name).required) required.push(field.name);
  }
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  return schema;
}

/** The type meta every kind's object carries in JSON, though its proto message has no such fields. */
const TYPE_META_PROPERTIES = {
  apiVersion: {
    description:
      'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
    type: 'string',
  },
  kind: {
    description:
      'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
    type: 'string',
  },
};

function markKind(schema: Record<string, unknown>, gvk: { group: string; kind: string; version: string }): void {
  schema.properties = { ...TYPE_META_PROPERTIES, ...(schema.properties as Record<string, unknown> | undefined) };
  schema['x-kubernetes-group-version-kind'] = [gvk];
}

/** OpenAPI v3 component schemas for these kinds and everything they refer to. */
export function openApiDefinitions(defs: ServedKind[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    const type = lookupMessage({ group: def.group, version: def.version, kind: def.kind });
    if (!type) continue;
    refTo(type, out);
    markKind(out[definitionName(typeName(type))] as Record<string, unknown>, { group: def.group, kind: def.kind, version: def.version });
    const { listKind } = def;
    const listType = listKind ? lookupMessage({ group: def.group, version: def.version, kind: listKind }) : null;
    if (listType && listKind) {
      refTo(listType, out);
      markKind(out[definitionName(typeName(listType))] as Record<string, unknown>, { group: def.group, kind: listKind, version: def.version });
    }
  }
  return out;
}

export function protoDefinitionName(def: ServedKind): string {
  const type = lookupMessage({ group: def.group, version: def.version, kind: def.kind });
  return type ? definitionName(typeName(type)) : `${def.group || 'core'}.${def.version}.${def.kind}`;
}
