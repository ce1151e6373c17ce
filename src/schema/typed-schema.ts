import type { Field, Type } from 'protobufjs';
import { isInlineField, lookupMessage } from './proto-loader';
import type { GroupVersionKind } from '../api/types';
import { STRING_LIST_MESSAGES } from '../generated/api-facts';
import { FIELD_FACTS, type FieldFacts } from './field-facts';

/**
 * The typed view of a kind that decoding, field validation, pruning, strategic merge and
 * server-side apply walk: for built-in kinds, built from the .proto messages (structure) and the
 * field facts (list and map semantics, required fields, enums); for custom resources, from the
 * CRD's OpenAPI schema (openapi-typed-schema.ts).
 */

export type ScalarType = 'string' | 'int32' | 'int64' | 'number' | 'boolean' | 'bytes';

export type SchemaNode = (
  | { kind: 'scalar'; type: ScalarType }
  /** Values whose JSON is a string or number of their own syntax, or free-form JSON. */
  | { kind: 'time' | 'duration' | 'int-or-string' | 'quantity' | 'free' }
  | ObjectNode
  | { kind: 'map'; values: SchemaNode; atomic: boolean }
  | { kind: 'list'; items: SchemaNode; listType: 'atomic' | 'set' | 'map'; keys: string[] }
) &
  NullPolicy;

export interface NullPolicy {
  /**
   * Under a custom resource's schema, a null here survives decoding: the schema says `nullable`,
   * or has a `default` that defaulting puts in its place. Other nulls are dropped, as
   * kube-apiserver's PruneNonNullableNullsWithoutDefaults does; Go-typed fields never keep one.
   */
  readonly keepsNull?: true;
}

/**
 * Where a struct's structure comes from. 'proto': a Go struct, whose decoding fails on a value of
 * the wrong type. 'openapi': a CRD's structural schema, whose decoding only prunes (a wrong type
 * is schema validation's 422), keeps nulls where the schema allows them, and keeps empty maps and
 * lists (there is no omitempty).
 */
export type StructOrigin = 'proto' | 'openapi';

export interface ObjectNode extends NullPolicy {
  readonly kind: 'object';
  /** +structType=atomic (x-kubernetes-map-type: atomic): replaced whole, never merged field by field. */
  readonly atomic: boolean;
  /**
   * x-kubernetes-preserve-unknown-fields: fields the schema does not declare are kept (neither
   * pruned nor reported), and server-side apply tracks them as structured-merge-diff's deduced type.
   */
  readonly preservesUnknown: boolean;
  readonly origin: StructOrigin;
  /** The Go struct name, as decoding errors name it (e.g. "PodSpec"); a custom resource's kind. */
  readonly name: string;
  readonly fullName: string;
  /** A declared field (an inlined struct's too), or null. */
  field(name: string): FieldSchema | null;
  fieldNames(): string[];
}

export interface FieldSchema {
  name: string;
  node: SchemaNode;
  facts: FieldFacts;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

const SPECIAL_KINDS: Record<string, SchemaNode> = {
  [`${META}.Time`]: { kind: 'time' },
  [`${META}.MicroTime`]: { kind: 'time' },
  [`${META}.Duration`]: { kind: 'duration' },
  [`${META}.FieldsV1`]: { kind: 'free' },
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': { kind: 'int-or-string' },
  'k8s.io.apimachinery.pkg.api.resource.Quantity': { kind: 'quantity' },
  'k8s.io.apimachinery.pkg.runtime.RawExtension': { kind: 'free' },
  // Named []string types (ExtraValue, Verbs): a message on the wire, the list itself in JSON.
  ...Object.fromEntries(STRING_LIST_MESSAGES.map((m) => [m, { kind: 'list', items: { kind: 'scalar', type: 'string' }, listType: 'atomic', keys: [] }])),
};

const SCALARS: Record<string, ScalarType> = {
  string: 'string',
  bool: 'boolean',
  int32: 'int32',
  uint32: 'int32',
  sint32: 'int32',
  int64: 'int64',
  uint64: 'int64',
  sint64: 'int64',
  double: 'number',
  float: 'number',
  bytes: 'bytes',
};

/** The object node of a protobuf message. */
class MessageNode implements ObjectNode {
  readonly kind = 'object';
  readonly preservesUnknown = false;
  readonly origin = 'proto';
  private readonly cache = new Map<string, FieldSchema | null>();

  constructor(
    private readonly type: Type,
    /** +structType=atomic: the object is replaced whole, never merged field by field. */
    readonly atomic: boolean,
  ) {}

  get name(): string {
    return this.type.name;
  }

  get fullName(): string {
    return this.type.fullName.slice(1);
  }

  field(name: string): FieldSchema | null {
    let schema = this.cache.get(name);
    if (schema === undefined) {
      schema = this.resolve(name);
      this.cache.set(name, schema);
    }
    return schema;
  }

  /** A field of this message, or of a message inlined into it. */
  private resolve(name: string): FieldSchema | null {
    const own = this.type.fields[name];
    if (own && Object.prototype.hasOwnProperty.call(this.type.fields, name) && !isInlineField(this.type, own)) {
      const facts = FIELD_FACTS[this.fullName]?.[name] ?? {};
      return { name, node: fieldNode(own, facts), facts };
    }
    for (const f of this.type.fieldsArray) {
      if (isInlineField(this.type, f)) {
        const found = objectNode(f.resolvedType as Type, false).field(name);
        if (found) return found;
      }
    }
    return null;
  }

  fieldNames(): string[] {
    return this.type.fieldsArray.flatMap((f) => (isInlineField(this.type, f) ? objectNode(f.resolvedType as Type, false).fieldNames() : [f.name]));
  }
}

const objectNodes = new Map<string, MessageNode>();

function objectNode(type: Type, atomic: boolean): MessageNode {
  const key = `${type.fullName}|${atomic}`;
  let node = objectNodes.get(key);
  if (!node) {
    node = new MessageNode(type, atomic);
    objectNodes.set(key, node);
  }
  return node;
}

function valueNode(field: Field, facts: FieldFacts): SchemaNode {
  const message = field.resolvedType as Type | null;
  if (message) return SPECIAL_KINDS[message.fullName.slice(1)] ?? objectNode(message, facts.structType === 'atomic');
  return { kind: 'scalar', type: SCALARS[field.type] ?? 'string' };
}

/**
 * Lists follow structured-merge-diff's reading of Kubernetes' schemas: an explicit list type wins;
 * a merge patch strategy makes a keyed list (or a set, for scalars); anything else is atomic.
 */
function listSemantics(facts: FieldFacts, items: SchemaNode): { listType: 'atomic' | 'set' | 'map'; keys: string[] } {
  if (facts.listType) return { listType: facts.listType, keys: facts.listMapKeys ?? (facts.patchMergeKey ? [facts.patchMergeKey] : []) };
  if (facts.patchStrategy?.split(',').includes('merge')) {
    if (facts.patchMergeKey) return { listType: 'map', keys: [facts.patchMergeKey] };
    if (items.kind === 'scalar') return { listType: 'set', keys: [] };
  }
  return { listType: 'atomic', keys: [] };
}

function fieldNode(field: Field, facts: FieldFacts): SchemaNode {
  const value = valueNode(field, facts);
  if (field.map) return { kind: 'map', values: value, atomic: facts.mapType === 'atomic' };
  if (field.repeated) return { kind: 'list', items: value, ...listSemantics(facts, value) };
  return value;
}

/** The schema of a kind kapi knows the protobuf message of; null otherwise (custom resources). */
export function kindSchema(gvk: GroupVersionKind): ObjectNode | null {
  const type = lookupMessage(gvk);
  return type ? objectNode(type, false) : null;
}

/** metav1.ObjectMeta: the metadata of every object, custom resources' and embedded resources' too. */
export function objectMetaSchema(): ObjectNode {
  return kindSchema({ group: 'meta.k8s.io', version: 'v1', kind: 'ObjectMeta' })!;
}
