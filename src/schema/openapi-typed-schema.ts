import type { JSONSchemaProps } from './json-schema-props';
import { objectMetaSchema, type FieldSchema, type NullPolicy, type ObjectNode, type SchemaNode } from './typed-schema';

/**
 * The typed schema of a custom resource, read from its CRD version's structural schema as
 * kube-apiserver reads it: the pruning of apiextensions-apiserver (`pkg/apiserver/schema/pruning`)
 * for what decoding keeps, and kube-openapi's schemaconv for what server-side apply merges.
 */

/** The object node of a struct described by a CRD schema (an object with properties). */
class CustomObjectNode implements ObjectNode {
  readonly kind = 'object';
  readonly origin = 'openapi';

  constructor(
    /** The kind of the custom resource the struct belongs to. */
    readonly name: string,
    /** Where the struct sits in the resource, e.g. "Widget.spec.template". */
    readonly fullName: string,
    private readonly fields: Map<string, FieldSchema>,
    readonly atomic: boolean,
    readonly preservesUnknown: boolean,
    readonly keepsNull?: true,
  ) {}

  field(name: string): FieldSchema | null {
    return this.fields.get(name) ?? null;
  }

  fieldNames(): string[] {
    return [...this.fields.keys()];
  }
}

type Scalar = Extract<SchemaNode, { kind: 'scalar' }>;

const STRING: Scalar = { kind: 'scalar', type: 'string' };

const SCALARS: Record<'string' | 'integer' | 'number' | 'boolean', Scalar> = {
  // date-time, byte and other formats stay plain strings: a custom resource has no Go type behind them
  string: STRING,
  integer: { kind: 'scalar', type: 'int64' },
  number: { kind: 'scalar', type: 'number' },
  boolean: { kind: 'scalar', type: 'boolean' },
};

function nullPolicy(s: JSONSchemaProps): NullPolicy {
  return s.nullable || s.default !== undefined ? { keepsNull: true } : {};
}

/** apiVersion, kind and metadata: what every resource, and every embedded one, has whatever its schema says. */
function resourceFields(): [string, FieldSchema][] {
  return [
    ['apiVersion', { name: 'apiVersion', node: STRING, facts: {} }],
    ['kind', { name: 'kind', node: STRING, facts: {} }],
    ['metadata', { name: 'metadata', node: objectMetaSchema(), facts: {} }],
  ];
}

function structNode(s: JSONSchemaProps, kind: string, at: string, embedded: boolean): CustomObjectNode {
  const fields = new Map<string, FieldSchema>();
  for (const [name, prop] of Object.entries(s.properties ?? {}))
    fields.set(name, { name, node: schemaNode(prop, kind, `${at}.${name}`), facts: prop.default !== undefined ? { default: prop.default } : {} });
  if (embedded) for (const [name, field] of resourceFields()) fields.set(name, field);
  const preserves = s['x-kubernetes-preserve-unknown-fields'] === true || s.additionalProperties === true;
  return new CustomObjectNode(kind, at, fields, s['x-kubernetes-map-type'] === 'atomic', preserves, nullPolicy(s).keepsNull);
}

/**
 * An object schema: a struct when it has properties (or is an embedded resource), a map when it
 * types its values with additionalProperties; otherwise a struct with no fields, which keeps
 * everything under preserve-unknown-fields (structured-merge-diff deduces its fields' types) and
 * nothing without.
 */
function objectSchemaNode(s: JSONSchemaProps, kind: string, at: string): SchemaNode {
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const values = s.additionalProperties;
  if (!embedded && Object.keys(s.properties ?? {}).length === 0 && typeof values === 'object') {
    return { kind: 'map', values: schemaNode(values, kind, `${at}.*`), atomic: s['x-kubernetes-map-type'] === 'atomic', ...nullPolicy(s) };
  }
  return structNode(s, kind, at, embedded);
}

function schemaNode(s: JSONSchemaProps, kind: string, at: string): SchemaNode {
  if (s['x-kubernetes-int-or-string']) return { kind: 'int-or-string', ...nullPolicy(s) };
  if (s['x-kubernetes-embedded-resource']) return objectSchemaNode(s, kind, at);
  switch (s.type) {
    case 'object':
      return objectSchemaNode(s, kind, at);
    case 'array':
      return {
        kind: 'list',
        items: s.items ? schemaNode(s.items, kind, `${at}[*]`) : { kind: 'free' },
        // kube-openapi reads a CRD list without x-kubernetes-list-type as atomic
        listType: s['x-kubernetes-list-type'] ?? 'atomic',
        keys: s['x-kubernetes-list-map-keys'] ?? [],
        ...nullPolicy(s),
      };
    case undefined:
      return s['x-kubernetes-preserve-unknown-fields'] ? objectSchemaNode(s, kind, at) : { kind: 'free', ...nullPolicy(s) };
    default:
      return { ...SCALARS[s.type], ...nullPolicy(s) };
  }
}

/**
 * The typed schema of a whole custom resource of `kind` whose CRD version declares `schema`:
 * apiVersion, kind and meta/v1 ObjectMeta at the root beside the schema's own properties.
 */
export function customResourceSchema(schema: JSONSchemaProps, kind: string): ObjectNode {
  return structNode(schema, kind, kind, true);
}
