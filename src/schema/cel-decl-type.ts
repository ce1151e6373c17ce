import type { CelType } from '../cel/cost-estimate';
import { celPropertyName } from './cel-escaping';
import type { JSONSchemaProps } from './json-schema-props';

/**
 * The CEL type of a structural schema node with the size bounds kube's cost estimator reads off
 * it (apiserver/pkg/cel/common/schemas.go SchemaDeclType): a string's maxLength times 4 (bytes per
 * code point), a list's maxItems, a map's maxProperties, and where a bound is unset what fits in
 * the 3 MiB request limit; with each type's minimum serialized size, which bounds how often a
 * node can repeat in one object.
 */

/** apiserver/pkg/apis/cel/config.go MaxRequestSizeBytes. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;
const MIN_DURATION_SIZE_JSON = 3;
const MAX_DURATION_SIZE_JSON = 32;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;
const MAX_DATETIME_SIZE_JSON = 32;
/** estimateMaxStringLengthPerRequest for plain strings: the request less its quotes. */
const MAX_STRING_LENGTH = MAX_REQUEST_SIZE_BYTES - 2;

const zeroIfNegative = (n: number): number => Math.max(0, n);

/** WithTypeAndObjectMeta: a resource root always declares kind, apiVersion and metadata's name and generateName, as strings. */
function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const p = s.properties ?? {};
  const meta = p.metadata?.properties ?? {};
  if (
    p.kind?.type === 'string' &&
    p.apiVersion?.type === 'string' &&
    p.metadata?.type === 'object' &&
    meta.name?.type === 'string' &&
    meta.generateName?.type === 'string'
  )
    return s;
  const string: JSONSchemaProps = { type: 'string' };
  return {
    ...s,
    properties: { ...p, kind: string, apiVersion: string, metadata: { type: 'object', properties: { name: string, generateName: string } } },
  };
}

/** SchemaDeclType: the node's CEL type, or null where CEL does not see it (no type, an array without items). */
export function schemaDeclType(s: JSONSchemaProps | undefined, isResourceRoot: boolean): CelType | null {
  if (!s) return null;
  if (s['x-kubernetes-int-or-string']) {
    return { kind: 'dyn', minSize: 1, maxElements: s.maxLength !== undefined ? zeroIfNegative(s.maxLength) * 4 : MAX_STRING_LENGTH };
  }
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      const items = schemaDeclType(s.items, s.items?.['x-kubernetes-embedded-resource'] === true);
      if (!items) return null;
      // estimateMaxArrayItemsFromMinSize: the brackets, then each item and its comma
      const maxItems = s.maxItems !== undefined ? zeroIfNegative(s.maxItems) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (items.minSize! + 1));
      return { kind: 'list', elem: items, maxElements: maxItems, minSize: 2 };
    }
    case 'object': {
      if (typeof s.additionalProperties === 'object') {
        const values = schemaDeclType(s.additionalProperties, s.additionalProperties['x-kubernetes-embedded-resource'] === true);
        if (!values) return null;
        // estimateMaxAdditionalPropertiesFromMinSize: a two-byte key with its quotes, colon and comma, and the value
        const maxProperties =
          s.maxProperties !== undefined ? zeroIfNegative(s.maxProperties) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (values.minSize! + 6));
        return { kind: 'map', elem: values, maxElements: maxProperties, minSize: 2 };
      }
      const fields = new Map<string, CelType>();
      const required = new Set(s.required ?? []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const t = schemaDeclType(prop, prop['x-kubernetes-embedded-resource'] === true);
        if (!t) continue;
        fields.set(celPropertyName(name), t);
        // required fields without a default are always serialized: "name":value and a comma
        if (required.has(name) && prop.default === undefined) minSize += name.length + t.minSize! + 4;
      }
      return { kind: 'object', fields, maxElements: 0, minSize };
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return { kind: 'bytes', minSize: MIN_STRING_SIZE, maxElements: s.maxLength !== undefined ? zeroIfNegative(s.maxLength) : MAX_STRING_LENGTH };
        case 'duration':
          return { kind: 'duration', minSize: MIN_DURATION_SIZE_JSON, maxElements: MAX_DURATION_SIZE_JSON };
        case 'date':
          return { kind: 'timestamp', minSize: JSON_DATE_SIZE, maxElements: JSON_DATE_SIZE };
        case 'date-time':
          return { kind: 'timestamp', minSize: MIN_DATETIME_SIZE_JSON, maxElements: MAX_DATETIME_SIZE_JSON };
      }
      if (s.maxLength !== undefined) return { kind: 'string', minSize: MIN_STRING_SIZE, maxElements: zeroIfNegative(s.maxLength) * 4 };
      if (s.enum && s.enum.length > 0) {
        // estimateMaxStringEnumLength: the longest value, in bytes
        const longest = Math.max(0, ...s.enum.map((v) => (typeof v === 'string' ? Buffer.byteLength(v) : 0)));
        return { kind: 'string', minSize: MIN_STRING_SIZE, maxElements: longest };
      }
      return { kind: 'string', minSize: MIN_STRING_SIZE, maxElements: MAX_STRING_LENGTH };
    case 'boolean':
      return { kind: 'bool', minSize: MIN_BOOL_SIZE, maxElements: 0 };
    case 'number':
      return { kind: 'double', minSize: MIN_NUMBER_SIZE, maxElements: 0 };
    case 'integer':
      return { kind: 'int', minSize: MIN_NUMBER_SIZE, maxElements: 0 };
    default:
      return null;
  }
}

/** compilation.go maxCardinality: how often a node of this minimum size can repeat in one request (each with a comma). */
export function unboundedCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSize + 1));
}
