import { fromUnstructuredError } from './unstructured-converter-errors';
import type { SchemaNode } from './typed-schema';

const scalar = (type: 'string' | 'boolean' | 'int32' | 'int64' | 'number' | 'bytes'): SchemaNode => ({ kind: 'scalar', type });

describe("runtime.DefaultUnstructuredConverter's texts", () => {
  test('shapes: map, slice and struct name the reflect.Kind found, integers as int64', () => {
    expect(fromUnstructuredError('x', { kind: 'map', values: scalar('string'), atomic: false })).toBe('cannot restore map from string');
    expect(fromUnstructuredError(5, { kind: 'list', items: scalar('string'), listType: 'atomic', keys: [] })).toBe('cannot restore slice from int64');
    expect(fromUnstructuredError(5.5, { kind: 'list', items: scalar('string'), listType: 'atomic', keys: [] })).toBe('cannot restore slice from float64');
    expect(fromUnstructuredError([1], { kind: 'map', values: scalar('string'), atomic: false })).toBe('cannot restore map from slice');
    expect(fromUnstructuredError(true, { kind: 'time' })).toBe('json: cannot unmarshal bool into Go value of type string');
  });

  test('simple types: numbers convert among themselves, a whole float into an integer, an integer never into a string', () => {
    expect(fromUnstructuredError(1, scalar('string'))).toBe('cannot convert int64 to string');
    expect(fromUnstructuredError(1.5, scalar('int32'))).toBe('cannot convert float64 to int32');
    expect(fromUnstructuredError(1e20, scalar('int64'))).toBeNull();
    expect(fromUnstructuredError(3_000_000_000, scalar('int32'))).toBeNull();
    expect(fromUnstructuredError(1.5, scalar('string'))).toBe('unrecognized type: string');
    expect(fromUnstructuredError('yes', scalar('boolean'))).toBe('unrecognized type: bool');
    expect(fromUnstructuredError(1, scalar('boolean'))).toBe('unrecognized type: bool');
    expect(fromUnstructuredError({}, scalar('number'))).toBe('unrecognized type: float64');
    expect(fromUnstructuredError('aGk=', scalar('bytes'))).toBeNull();
    expect(fromUnstructuredError(1, scalar('bytes'))).toBe('cannot restore slice from int64');
  });
});
