import { fieldErrorMessage } from '../api/field-errors';
import type { JSONSchemaProps } from './json-schema-props';
import { listAndMapTypeErrors } from './list-map-types';

const errors = (s: JSONSchemaProps) => listAndMapTypeErrors(s, 's').map(fieldErrorMessage);

describe('x-kubernetes-map-type, -list-type and -list-map-keys, as ValidateCustomResourceDefinitionOpenAPISchema checks them', () => {
  test('values and the types they need', () => {
    expect(errors({ type: 'object', 'x-kubernetes-map-type': 'granular' })).toEqual([]);
    expect(errors({ type: 'string', 'x-kubernetes-map-type': 'loose' } as unknown as JSONSchemaProps)).toEqual([
      's.type: Invalid value: "string": must be object if x-kubernetes-map-type is specified',
      's.x-kubernetes-map-type: Unsupported value: "loose": supported values: "atomic", "granular"',
    ]);
    expect(errors({ 'x-kubernetes-list-type': 'bag', items: { type: 'string' } } as unknown as JSONSchemaProps)).toEqual([
      's.type: Required value: must be array if x-kubernetes-list-type is specified',
      's.x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"',
    ]);
  });

  test("a set's items are atomic; a map's keys name required or defaulted scalar properties, once each", () => {
    expect(errors({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } } })).toEqual([
      's.items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set',
    ]);
    expect(errors({ type: 'array', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'string' } })).toEqual([
      's.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty',
    ]);
    expect(
      errors({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'spec', 'nope', 'name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, spec: { type: 'object', default: {} } } },
      }),
    ).toEqual([
      's.items.properties[spec].type: Invalid value: "object": must be a scalar type if parent array\'s x-kubernetes-list-type is map',
      's.x-kubernetes-list-map-keys: Invalid value: ["name","spec","nope","name"]: entries must all be names of item properties',
      's.x-kubernetes-list-map-keys: Invalid value: ["name","spec","nope","name"]: must not contain duplicate entries',
    ]);
    expect(
      errors({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port'],
        items: { type: 'object', nullable: true, properties: { port: { type: 'integer', nullable: true } } },
      }),
    ).toEqual([
      's.items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map',
      's.items.properties[port].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
      's.items.properties[port].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
    ]);
    expect(errors({ type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'string' } })).toEqual([
      's.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
      's.items.type: Invalid value: "string": must be object if parent array\'s x-kubernetes-list-type is map',
    ]);
  });
});
