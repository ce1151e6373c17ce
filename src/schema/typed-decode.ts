import { runWalk, runWalkInSlices, type Walk } from '../api/loop-slices';
import { isPlainObject, setOwn } from '../api/types';
import type { ObjectNode, ScalarType, SchemaNode, StructOrigin } from './typed-schema';
import { fromUnstructuredError } from './unstructured-converter-errors';

/**
 * Reads a JSON value against a kind's schema as kube-apiserver's decoders do. Under Go-typed
 * (proto) structs, as Go's strict decoder: the first value of the wrong type is a decode error
 * (worded as encoding/json words it); fields the schema does not know are collected with their
 * paths and removed; nulls become absent fields. Under a custom resource's schema (openapi), as
 * apiextensions-apiserver's structural pruning: unknown fields are removed and reported unless the
 * schema preserves them, a value of the wrong shape loses its fields (validation reports the type),
 * nulls stay only where the schema is nullable or defaulted.
 */

export interface DecodeReport {
  /** Paths of unknown fields, e.g. "spec.containers[0].foo", in document order. */
  unknown: string[];
  /** The first type error, or null. */
  typeError: string | null;
  /**
   * The first type error as kube's unstructured converter words it, which a strategic merge
   * patch's result goes through; null when there is none or the converter would accept the value.
   */
  converterError: string | null;
}

const INT_RANGE: Record<'int32' | 'int64', [number, number]> = {
  int32: [-2147483648, 2147483647],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** Go's name for the type of a schema node, as it appears in unmarshal errors. */
function goType(node: SchemaNode): string {
  switch (node.kind) {
    case 'scalar':
      return ({ string: 'string', int32: 'int32', int64: 'int64', number: 'float64', boolean: 'bool', bytes: '[]uint8' } as Record<ScalarType, string>)[
        node.type
      ];
    case 'object':
      return `v1.${node.name}`;
    case 'map':
      return `map[string]${goType(node.values)}`;
    case 'list':
      return `[]${goType(node.items)}`;
    case 'time':
      return 'v1.Time';
    case 'duration':
      return 'v1.Duration';
    case 'int-or-string':
      return 'intstr.IntOrString';
    case 'quantity':
      return 'resource.Quantity';
    case 'free':
      return 'interface {}';
  }
}

/** Go's omitempty drops empty maps and slices: a decoded and re-encoded object has none. */
function isEmptyCollection(value: unknown, node: SchemaNode): boolean {
  if (node.kind === 'map') return isPlainObject(value) && Object.keys(value).length === 0;
  if (node.kind === 'list') return Array.isArray(value) && value.length === 0;
  return false;
}

/**
 * What Go's decoder leaves for a null element of a map or slice: the element's zero value (a
 * label `a: null` decodes as `a: ""`, a quantity as "0", an int-or-string as 0, a struct as a
 * struct of zeros, which validation then judges: a port `null` is a port without its number);
 * undefined where that zero value is encoded as null (a time, bytes, free-form JSON).
 */
function elementZero(node: SchemaNode): unknown {
  if (node.kind === 'quantity') return '0';
  if (node.kind === 'int-or-string') return 0;
  if (node.kind === 'object') return node.origin === 'proto' ? {} : undefined;
  if (node.kind !== 'scalar') return undefined;
  switch (node.type) {
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'bytes':
      return undefined;
    default:
      return 0;
  }
}

/** Whether a value has the JSON shape (object, array or neither) a schema node describes. */
function fitsShape(value: unknown, node: SchemaNode): boolean {
  switch (node.kind) {
    case 'free':
      return true;
    case 'object':
    case 'map':
      return isPlainObject(value);
    case 'list':
      return Array.isArray(value);
    default:
      return !isPlainObject(value) && !Array.isArray(value);
  }
}

/** How many items of a list or entries of a map are read between two yields of the walk (a yield passes up through every level of it). */
const ITEMS_PER_YIELD = 64;

/** Whether a value has values in it (an object or a list): only those are walked, the rest is a leaf. */
function holdsValues(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

class Walker {
  /** Unknown fields of Go-typed structs (ObjectMeta's, in a custom resource), in document order. */
  readonly unknown: string[] = [];
  /** Fields pruned by a custom resource's schema. */
  readonly pruned: string[] = [];
  typeError: string | null = null;
  converterError: string | null = null;

  constructor(private readonly prune: boolean) {}

  private unknownField(obj: Record<string, unknown>, key: string, path: string, origin: StructOrigin): void {
    (origin === 'openapi' ? this.pruned : this.unknown).push(path);
    if (this.prune) delete obj[key];
  }

  /** A custom resource's value: only pruning applies; schema validation judges the types. */
  private *customValue(value: unknown, node: SchemaNode, path: string): Walk<void> {
    if (!fitsShape(value, node)) {
      // structural pruning walks a wrong-shaped value with no schema, which drops every field in it
      if (!(node.kind === 'object' && node.preservesUnknown)) yield* this.pruneAll(value, path);
      return;
    }
    switch (node.kind) {
      case 'object':
        return yield* this.object(value as Record<string, unknown>, node, path, path);
      case 'map': {
        let n = 0;
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          if (v === null && !node.values.keepsNull) delete (value as Record<string, unknown>)[k];
          else if (holdsValues(v)) yield* this.value(v, node.values, '', '', `${path}.${k}`, 'openapi');
          if (++n % ITEMS_PER_YIELD === 0) yield;
        }
        return;
      }
      case 'list':
        for (const [i, item] of (value as unknown[]).entries()) {
          if (holdsValues(item)) yield* this.value(item, node.items, '', '', `${path}[${i}]`, 'openapi');
          if ((i + 1) % ITEMS_PER_YIELD === 0) yield;
        }
        return;
    }
  }

  private *pruneAll(value: unknown, path: string): Walk<void> {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        if (holdsValues(item)) yield* this.pruneAll(item, `${path}[${i}]`);
        if ((i + 1) % ITEMS_PER_YIELD === 0) yield;
      }
    } else if (isPlainObject(value)) for (const key of Object.keys(value)) this.unknownField(value, key, `${path}.${key}`, 'openapi');
  }

  /** `key`, when given, is the field under namePath that holds the value: the name is joined only for an error. */
  private mismatch(value: unknown, node: SchemaNode, owner: string, namePath: string, key?: string): void {
    if (this.typeError) return;
    if (key !== undefined) namePath = namePath ? `${namePath}.${key}` : key;
    const intoInteger = node.kind === 'scalar' && (node.type === 'int32' || node.type === 'int64');
    const shown = typeof value === 'number' && intoInteger ? `number ${value}` : jsonKind(value);
    this.fail(`json: cannot unmarshal ${shown} into Go struct field ${owner}.${namePath} of type ${goType(node)}`, fromUnstructuredError(value, node));
  }

  /** A type error; the unstructured converter's text is the JSON decoder's unless it has its own. */
  private fail(text: string, converterText: string | null = text): void {
    this.typeError = text;
    this.converterError = converterText;
  }

  /** Checks one value; nulls decode to zero values and are fine everywhere. */
  *value(value: unknown, node: SchemaNode, owner: string, namePath: string, path: string, origin: StructOrigin): Walk<void> {
    if (!holdsValues(value)) return this.leaf(value, node, owner, namePath, origin);
    if (this.typeError) return;
    // ObjectMeta in an embedded resource is decoded as Go decodes it, type errors and all
    if (origin === 'openapi' && !(node.kind === 'object' && node.origin === 'proto')) return yield* this.customValue(value, node, path);
    switch (node.kind) {
      case 'object':
        if (!isPlainObject(value)) return this.mismatch(value, node, owner, namePath);
        return yield* this.object(value, node, namePath, path);
      case 'map': {
        if (!isPlainObject(value)) return this.mismatch(value, node, owner, namePath);
        let n = 0;
        for (const k of Object.keys(value)) {
          const v = value[k];
          const zero = v === null && this.prune ? elementZero(node.values) : undefined;
          if (zero !== undefined) setOwn(value, k, zero);
          else if (holdsValues(v)) yield* this.value(v, node.values, owner, namePath, `${path}.${k}`, 'proto');
          else this.leaf(v, node.values, owner, namePath, 'proto');
          if (++n % ITEMS_PER_YIELD === 0) yield;
        }
        return;
      }
      case 'list':
        if (!Array.isArray(value)) return this.mismatch(value, node, owner, namePath);
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          const zero = item === null && this.prune ? elementZero(node.items) : undefined;
          if (zero !== undefined) value[i] = zero;
          else if (holdsValues(item)) yield* this.value(item, node.items, owner, namePath, `${path}[${i}]`, 'proto');
          else this.leaf(item, node.items, owner, namePath, 'proto');
          if ((i + 1) % ITEMS_PER_YIELD === 0) yield;
        }
        return;
      default:
        return this.leaf(value, node, owner, namePath, origin);
    }
  }

  /**
   * A value with nothing in it to walk (a scalar, or an object or list where a scalar belongs):
   * checked at once, without the walk's cost of a generator per value.
   */
  leaf(value: unknown, node: SchemaNode, owner: string, namePath: string, origin: StructOrigin, key?: string): void {
    if (this.typeError || value === null || value === undefined) return;
    // a custom resource's scalars are judged by schema validation (ObjectMeta's are Go-typed)
    if (origin === 'openapi' && !(node.kind === 'object' && node.origin === 'proto')) return;
    switch (node.kind) {
      case 'scalar':
        return this.scalar(value, node.type, node, owner, namePath, key);
      case 'free':
        return;
      case 'int-or-string':
        if (typeof value === 'string') return;
        if (typeof value !== 'number' || !Number.isInteger(value)) {
          this.fail(`json: cannot unmarshal ${typeof value === 'number' ? `number ${value}` : jsonKind(value)} into Go value of type int32`);
        }
        return;
      case 'quantity':
        if ((typeof value !== 'string' && typeof value !== 'number') || !QUANTITY.test(String(value))) {
          this.fail("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
        }
        return;
      case 'time':
        if (typeof value !== 'string') return this.mismatch(value, node, owner, namePath, key);
        if (!RFC3339.test(value))
          this.fail(`parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`);
        return;
      case 'duration':
        if (typeof value !== 'string') this.mismatch(value, node, owner, namePath, key);
        return;
      default:
        return this.mismatch(value, node, owner, namePath, key);
    }
  }

  private scalar(value: unknown, type: ScalarType, node: SchemaNode, owner: string, namePath: string, key?: string): void {
    switch (type) {
      case 'string':
        if (typeof value !== 'string') this.mismatch(value, node, owner, namePath, key);
        return;
      case 'boolean':
        if (typeof value !== 'boolean') this.mismatch(value, node, owner, namePath, key);
        return;
      case 'number':
        if (typeof value !== 'number') this.mismatch(value, node, owner, namePath, key);
        return;
      case 'int32':
      case 'int64': {
        const [min, max] = INT_RANGE[type];
        if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) this.mismatch(value, node, owner, namePath, key);
        return;
      }
      case 'bytes': {
        if (typeof value !== 'string') return this.mismatch(value, node, owner, namePath, key);
        // Go's base64 decoder skips \r and \n (a line-wrapped `base64` output); the byte it reports is the input's.
        const text = value.includes('\n') || value.includes('\r') ? value.replace(/[\r\n]/g, '') : value;
        if (!BASE64.test(text) || text.length % 4 !== 0) this.fail(`illegal base64 data at input byte ${Math.max(0, value.search(/[^A-Za-z0-9+/=\r\n]/))}`);
        return;
      }
    }
  }

  *object(obj: Record<string, unknown>, node: ObjectNode, namePath: string, path: string, root = false): Walk<void> {
    const custom = node.origin === 'openapi';
    // Paths are joined only where they are used: for a nested value, an unknown field or an error.
    for (const key of Object.keys(obj)) {
      if (this.typeError) return;
      if (root && (key === 'apiVersion' || key === 'kind')) continue;
      const field = node.field(key);
      if (!field) {
        if (!node.preservesUnknown) this.unknownField(obj, key, path ? `${path}.${key}` : key, node.origin);
        continue;
      }
      const value = obj[key];
      if (value === null ? !(custom && field.node.keepsNull) : !custom && this.prune && isEmptyCollection(value, field.node) && !field.facts.required) {
        delete obj[key];
        continue;
      }
      if (holdsValues(value))
        yield* this.value(value, field.node, node.name, namePath ? `${namePath}.${key}` : key, path ? `${path}.${key}` : key, node.origin);
      else this.leaf(value, field.node, node.name, namePath, node.origin, key);
    }
  }

  /**
   * Under a custom resource, in kube-apiserver's order: ObjectMeta's unknown fields, then the
   * schema's pruned paths sorted, then embedded resources' metadata.
   */
  report(root: ObjectNode): string[] {
    if (root.origin === 'proto') return this.unknown;
    const isMeta = (p: string): boolean => p.startsWith('metadata.');
    return [...this.unknown.filter(isMeta), ...[...this.pruned].sort(), ...this.unknown.filter((p) => !isMeta(p))];
  }
}

/**
 * Checks `obj` against the kind's schema; with `prune`, unknown fields, nulls and empty optional
 * maps and lists are removed in place, as a Go decode and encode would (a custom resource keeps
 * its empty maps and lists, and the nulls its schema allows).
 */
export function typedDecode(obj: Record<string, unknown>, schema: ObjectNode, prune = true): DecodeReport {
  return runWalk(decodeWalk(obj, schema, prune));
}

/** typedDecode for a request: a long list's or map's items are read in slices, between other requests. */
export function typedDecodeInSlices(obj: Record<string, unknown>, schema: ObjectNode, slice: () => Promise<void>): Promise<DecodeReport> {
  return runWalkInSlices(decodeWalk(obj, schema, true), slice);
}

function* decodeWalk(obj: Record<string, unknown>, schema: ObjectNode, prune: boolean): Walk<DecodeReport> {
  const walker = new Walker(prune);
  yield* walker.object(obj, schema, '', '', true);
  return { unknown: walker.report(schema), typeError: walker.typeError, converterError: walker.converterError };
}
