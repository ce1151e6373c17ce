import type { ScalarType, SchemaNode } from './typed-schema';

/**
 * reflect.Kind of a JSON value as kube's patcher decodes it (sigs.k8s.io/json with PreserveInts:
 * integers are int64, other numbers float64).
 */
function reflectKind(value: unknown): string {
  if (Array.isArray(value)) return 'slice';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

const GO_KIND: Record<ScalarType, string> = { string: 'string', boolean: 'bool', int32: 'int32', int64: 'int64', number: 'float64', bytes: 'slice' };

const isNumeric = (kind: string): boolean => kind === 'int32' || kind === 'int64' || kind === 'float64';

/**
 * Go's unstructured converter (runtime.fromUnstructured) filling a simple type: numbers convert
 * among themselves (a float only when whole, for an integer), an integer converts to a string
 * type but is refused, and anything else is a type the converter does not recognize.
 */
function scalarError(value: unknown, from: string, into: string): string | null {
  if (from === into || (from === 'int64' && isNumeric(into))) return null;
  if (from === 'float64' && isNumeric(into)) return Number.isInteger(value) ? null : `cannot convert float64 to ${into}`;
  if (from === 'int64' && into === 'string') return 'cannot convert int64 to string';
  return `unrecognized type: ${into}`;
}

/**
 * What runtime.DefaultUnstructuredConverter answers when `value` does not fit `node`
 * (mapFromUnstructured, sliceFromUnstructured, structFromUnstructured, fromUnstructured's simple
 * types; metav1.Time and Duration unmarshal a JSON string); null when the converter accepts it
 * where Go's JSON decoder would not (an integer out of an int32's range wraps). kube's patcher
 * converts a strategic merge patch's result with it, so these are the texts its type errors carry.
 */
export function fromUnstructuredError(value: unknown, node: SchemaNode): string | null {
  const kind = reflectKind(value);
  switch (node.kind) {
    case 'map':
      return `cannot restore map from ${kind}`;
    case 'list':
      return `cannot restore slice from ${kind}`;
    case 'object':
      return `cannot restore struct from: ${kind}`;
    case 'time':
    case 'duration': {
      const json = kind === 'slice' ? 'array' : kind === 'map' ? 'object' : kind === 'bool' ? 'bool' : 'number';
      return `json: cannot unmarshal ${json} into Go value of type string`;
    }
    case 'scalar':
      if (node.type === 'bytes') return kind === 'string' ? null : `cannot restore slice from ${kind}`;
      return scalarError(value, kind, GO_KIND[node.type]);
    default:
      return null;
  }
}
