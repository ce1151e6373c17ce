import { isPlainObject } from '../api/types';

/**
 * A CRD's `openAPIV3Schema` read as Go's encoding/json reads it into apiextensions/v1's typed
 * JSONSchemaProps: the first value of a wrong JSON type is an unmarshal error in Go's words, and
 * nulls have Go's effect (an absent field; a zero value inside a list or map).
 */

type GoType =
  | { kind: 'string' | 'bool' | 'int64' | 'float64' | 'any'; name?: string }
  | { kind: 'list'; name: string; items: GoType }
  | { kind: 'map'; name: string; values: GoType }
  | { kind: 'struct'; name: string; fields: () => Record<string, GoType> }
  /** A type with its own UnmarshalJSON: what it accepts, and the error (if any) for the rest. */
  | { kind: 'custom'; accepts: (v: unknown) => boolean; error: string | null; schema: GoType };

const STRING: GoType = { kind: 'string' };
const NAMED_STRING = (name: string): GoType => ({ kind: 'string', name });
const BOOL: GoType = { kind: 'bool' };
const INT64: GoType = { kind: 'int64' };
const FLOAT64: GoType = { kind: 'float64' };
const JSON_VALUE: GoType = { kind: 'any' };
const STRINGS: GoType = { kind: 'list', name: '[]string', items: STRING };

const VALIDATION_RULE: GoType = {
  kind: 'struct',
  name: 'v1.ValidationRule',
  fields: () => ({
    rule: STRING,
    message: STRING,
    messageExpression: STRING,
    reason: NAMED_STRING('v1.FieldValueErrorReason'),
    fieldPath: STRING,
    optionalOldSelf: BOOL,
  }),
};

const EXTERNAL_DOCS: GoType = { kind: 'struct', name: 'v1.ExternalDocumentation', fields: () => ({ description: STRING, url: STRING }) };

export const SCHEMA_PROPS: GoType = {
  kind: 'struct',
  name: 'v1.JSONSchemaProps',
  fields: () => ({
    id: STRING,
    $schema: STRING,
    $ref: STRING,
    description: STRING,
    type: STRING,
    format: STRING,
    title: STRING,
    default: JSON_VALUE,
    maximum: FLOAT64,
    exclusiveMaximum: BOOL,
    minimum: FLOAT64,
    exclusiveMinimum: BOOL,
    maxLength: INT64,
    minLength: INT64,
    pattern: STRING,
    maxItems: INT64,
    minItems: INT64,
    uniqueItems: BOOL,
    multipleOf: FLOAT64,
    enum: { kind: 'list', name: '[]v1.JSON', items: JSON_VALUE },
    maxProperties: INT64,
    minProperties: INT64,
    required: STRINGS,
    // JSONSchemaPropsOrArray.UnmarshalJSON reads an object or a list and ignores anything else
    items: { kind: 'custom', accepts: () => true, error: null, schema: SCHEMA_PROPS },
    allOf: SCHEMA_LIST,
    oneOf: SCHEMA_LIST,
    anyOf: SCHEMA_LIST,
    not: SCHEMA_PROPS,
    properties: SCHEMA_MAP,
    additionalProperties: SCHEMA_OR_BOOL,
    patternProperties: SCHEMA_MAP,
    dependencies: { kind: 'map', name: 'v1.JSONSchemaDependencies', values: JSON_VALUE },
    additionalItems: SCHEMA_OR_BOOL,
    definitions: { ...SCHEMA_MAP, name: 'v1.JSONSchemaDefinitions' },
    externalDocs: EXTERNAL_DOCS,
    example: JSON_VALUE,
    nullable: BOOL,
    'x-kubernetes-preserve-unknown-fields': BOOL,
    'x-kubernetes-embedded-resource': BOOL,
    'x-kubernetes-int-or-string': BOOL,
    'x-kubernetes-list-map-keys': STRINGS,
    'x-kubernetes-list-type': STRING,
    'x-kubernetes-map-type': STRING,
    'x-kubernetes-validations': { kind: 'list', name: 'v1.ValidationRules', items: VALIDATION_RULE },
  }),
};
// read by SCHEMA_PROPS's fields only when called, after this module is loaded
const SCHEMA_LIST: GoType = { kind: 'list', name: '[]v1.JSONSchemaProps', items: SCHEMA_PROPS };
const SCHEMA_MAP: GoType = { kind: 'map', name: 'map[string]v1.JSONSchemaProps', values: SCHEMA_PROPS };
// JSONSchemaPropsOrBool.UnmarshalJSON: an object, true or false
const SCHEMA_OR_BOOL: GoType = { kind: 'custom', accepts: (v) => typeof v === 'boolean', error: 'boolean or JSON schema expected', schema: SCHEMA_PROPS };

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (isPlainObject(v)) return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

function typeName(t: GoType): string {
  switch (t.kind) {
    case 'list':
    case 'map':
    case 'struct':
      return t.name;
    case 'custom':
      return typeName(t.schema);
    case 'any':
      return 'v1.JSON';
    default:
      return t.name ?? t.kind;
  }
}

/** Where the decoder is: the struct owning the current field and the field names from the root (list indices and map keys are not named). */
interface Context {
  struct: string;
  fields: string[];
}

class TypeError_ {
  constructor(readonly message: string) {}
}

function mismatch(value: unknown, t: GoType, ctx: Context): TypeError_ {
  const shown = typeof value === 'number' && t.kind === 'int64' ? `number ${value}` : jsonKind(value);
  return new TypeError_(
    `json: cannot unmarshal ${shown} into Go struct field ${ctx.struct.replace(/^v1\./, '')}.${ctx.fields.join('.')} of type ${typeName(t)}`,
  );
}

/** The first error decoding `value` into `t`; nulls are skipped (they decode to nothing). */
function check(value: unknown, t: GoType, ctx: Context): TypeError_ | null {
  if (value === null || value === undefined) return null;
  switch (t.kind) {
    case 'any':
      return null;
    case 'string':
      return typeof value === 'string' ? null : mismatch(value, t, ctx);
    case 'bool':
      return typeof value === 'boolean' ? null : mismatch(value, t, ctx);
    case 'float64':
      return typeof value === 'number' ? null : mismatch(value, t, ctx);
    case 'int64':
      return typeof value === 'number' && Number.isInteger(value) ? null : mismatch(value, t, ctx);
    case 'list':
      if (!Array.isArray(value)) return mismatch(value, t, ctx);
      for (const item of value) {
        const err = check(item, t.items, ctx);
        if (err) return err;
      }
      return null;
    case 'map':
      if (!isPlainObject(value)) return mismatch(value, t, ctx);
      for (const v of Object.values(value)) {
        const err = check(v, t.values, ctx);
        if (err) return err;
      }
      return null;
    case 'struct': {
      if (!isPlainObject(value)) return mismatch(value, t, ctx);
      const fields = t.fields();
      for (const [key, v] of Object.entries(value)) {
        if (!Object.hasOwn(fields, key)) continue;
        const err = check(v, fields[key], { struct: t.name, fields: [...ctx.fields, key] });
        if (err) return err;
      }
      return null;
    }
    case 'custom': {
      if (isPlainObject(value) || (Array.isArray(value) && t.error === null)) {
        // a nested json.Unmarshal: Go's outer decoder rewrites a type error's field to its own place
        const err = Array.isArray(value) ? check(value, SCHEMA_LIST, ctx) : check(value, t.schema, { struct: 'v1.JSONSchemaProps', fields: [] });
        return (
          err &&
          new TypeError_(
            err.message.replace(/Go struct field \S+ of type/, `Go struct field ${ctx.struct.replace(/^v1\./, '')}.${ctx.fields.join('.')} of type`),
          )
        );
      }
      if (t.accepts(value) || t.error === null) return null;
      return new TypeError_(t.error);
    }
  }
}

/** Go's unmarshal error for a version's openAPIV3Schema, or null when it decodes. */
export function schemaPropsDecodeError(schema: unknown): string | null {
  return check(schema, SCHEMA_PROPS, { struct: 'v1.CustomResourceValidation', fields: ['spec', 'versions', 'schema', 'openAPIV3Schema'] })?.message ?? null;
}

/** Zero value of a Go type, for a null inside a list or map. */
function zero(t: GoType): unknown {
  switch (t.kind) {
    case 'struct':
      return {};
    case 'string':
      return '';
    case 'custom':
      return {};
    default:
      return null;
  }
}

/** What Go keeps of nulls once decoded and encoded again: none as fields, zero values in lists and maps. */
function dropNulls(value: unknown, t: GoType): unknown {
  if (value === null || value === undefined) return value;
  switch (t.kind) {
    case 'list':
      if (Array.isArray(value)) value.forEach((item, i) => (value[i] = item === null ? zero(t.items) : dropNulls(item, t.items)));
      return value;
    case 'map':
      if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) value[k] = v === null ? zero(t.values) : dropNulls(v, t.values);
      return value;
    case 'custom':
      if (Array.isArray(value)) return dropNulls(value, SCHEMA_LIST);
      return isPlainObject(value) ? dropNulls(value, t.schema) : value;
    case 'struct': {
      if (!isPlainObject(value)) return value;
      const fields = t.fields();
      for (const [k, v] of Object.entries(value)) {
        if (!Object.hasOwn(fields, k)) continue;
        const type = fields[k];
        // JSONSchemaPropsOrArray leaves what is neither an object nor a list empty
        const ignored = type.kind === 'custom' && type.error === null && !isPlainObject(v) && !Array.isArray(v);
        if (v === null || ignored) delete value[k];
        else dropNulls(v, type);
      }
      return value;
    }
    default:
      return value;
  }
}

/** Removes nulls from a schema that decodes (schemaPropsDecodeError is null) as Go's round trip does. */
export function normalizeSchemaNulls(schema: Record<string, unknown>): void {
  dropNulls(schema, SCHEMA_PROPS);
}
