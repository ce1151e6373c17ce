import type { Field, Type } from 'protobufjs';
import { isInlineField, lookupMessage } from '../codec/protobuf';
import type { GroupVersionKind } from '../api/types';
import { FIELD_FACTS, type FieldFacts } from './field-facts';

/**
 * The typed view of a kind that decoding, field validation, pruning, strategic merge and
 * server-side apply walk: built from the .proto messages (structure) and the field facts
 * (list and map semantics, required fields, enums).
 */

export type ScalarType = 'string' | 'int32' | 'int64' | 'number' | 'boolean' | 'bytes';

export type SchemaNode =
  | { kind: 'scalar'; type: ScalarType }
  /** Values whose JSON is a string or number of their own syntax, or free-form JSON. */
  | { kind: 'time' | 'duration' | 'int-or-string' | 'quantity' | 'free' }
  | ObjectNode
  | { kind: 'map'; values: SchemaNode; atomic: boolean }
  | { kind: 'list'; items: SchemaNode; listType: 'atomic' | 'set' | 'map'; keys: string[] };

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

export class ObjectNode {
  readonly kind = 'object';
  private readonly cache = new Map<string, FieldSchema | null>();

  constructor(
    private readonly type: Type,
    /** +structType=atomic: the object is replaced whole, never merged field by field. */
    readonly atomic: boolean,
  ) {}

  /** The Go struct name, as decoding errors name it (e.g. "PodSpec"). */
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

const objectNodes = new Map<string, ObjectNode>();

function objectNode(type: Type, atomic: boolean): ObjectNode {
  const key = `${type.fullName}|${atomic}`;
  let node = objectNodes.get(key);
  if (!node) {
    node = new ObjectNode(type, atomic);
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
