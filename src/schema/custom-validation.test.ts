import { fieldErrorMessage } from '../api/field-errors';
import { validateCustomObject } from './custom-validation';
import type { JSONSchemaProps } from './json-schema-props';

/** A CR schema with `spec` described by the given schema. */
const withSpec = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

const messages = (schema: JSONSchemaProps, obj: Record<string, unknown>): string[] => validateCustomObject(schema, obj).map(fieldErrorMessage);

/** Errors of `spec: {field: value}` against `spec.properties.field = fieldSchema`. */
const fieldMessages = (fieldSchema: JSONSchemaProps, value: unknown): string[] =>
  messages(withSpec({ type: 'object', properties: { field: fieldSchema } }), { spec: { field: value } });

// Expected texts follow apiextensions-apiserver's validation_test.go and kube-openapi's message
// templates as kubeOpenAPIResultToFieldErrors converts them.
describe('validateCustomObject', () => {
  it('accepts a valid object, ignoring fields the schema does not describe', () => {
    const schema = withSpec({ type: 'object', properties: { replicas: { type: 'integer' } } });
    expect(messages(schema, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 1, other: 'x' } })).toEqual([]);
  });

  describe('type', () => {
    it.each([
      ['string', 'foo', 'string'],
      ['integer', 42, 'integer'],
      ['boolean', true, 'boolean'],
      ['number', 1.2, 'number'],
      ['array', [], 'array'],
      ['null', null, 'null'],
    ])('reports a %s where an object is required', (_, value, kind) => {
      expect(fieldMessages({ type: 'object' }, value)).toEqual([`spec.field: Invalid value: "${kind}": spec.field in body must be of type object: "${kind}"`]);
    });

    it('reports a string where an integer is required', () => {
      expect(messages(withSpec({ type: 'object', properties: { replicas: { type: 'integer' } } }), { spec: { replicas: 'string' } })).toEqual([
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      ]);
    });

    it('accepts an integer for a number but not a fraction for an integer', () => {
      expect(fieldMessages({ type: 'number' }, 3)).toEqual([]);
      expect(fieldMessages({ type: 'integer' }, 1.5)).toEqual(['spec.field: Invalid value: "number": spec.field in body must be of type integer: "number"']);
    });

    it('accepts null only when nullable', () => {
      expect(fieldMessages({ type: 'object', nullable: true }, null)).toEqual([]);
      expect(fieldMessages({ nullable: true }, 'anything')).toEqual([]);
    });

    it('checks x-kubernetes-int-or-string as integer,string', () => {
      expect(fieldMessages({ 'x-kubernetes-int-or-string': true }, 42)).toEqual([]);
      expect(fieldMessages({ 'x-kubernetes-int-or-string': true }, '50%')).toEqual([]);
      expect(fieldMessages({ 'x-kubernetes-int-or-string': true }, true)).toEqual([
        'spec.field: Invalid value: "boolean": spec.field in body must be of type integer,string: "boolean"',
      ]);
      expect(fieldMessages({ 'x-kubernetes-int-or-string': true }, null)).toEqual([
        'spec.field: Invalid value: "null": spec.field in body must be of type integer,string: "null"',
      ]);
      expect(fieldMessages({ 'x-kubernetes-int-or-string': true, nullable: true }, null)).toEqual([]);
    });

    it('reports the type of the root at an empty path', () => {
      expect(messages({ type: 'object', properties: { spec: { type: 'string' } } }, { spec: {} })).toEqual([
        'spec: Invalid value: "object": spec in body must be of type string: "object"',
      ]);
    });
  });

  it('reports required fields, nested ones by their full path', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      required: ['spec'],
      properties: { spec: { type: 'object', required: ['nested'], properties: { nested: {} } } },
    };
    expect(messages(schema, { test: 'a' })).toEqual(['spec: Required value']);
    expect(messages(schema, { spec: {} })).toEqual(['spec.nested: Required value']);
  });

  it('reports enums with every allowed value quoted, non-strings as JSON', () => {
    const schema = withSpec({
      type: 'object',
      properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } },
    });
    expect(messages(schema, { spec: { nestedint: 'x', nestedstring: true } })).toEqual([
      'spec.nestedint: Invalid value: "string": spec.nestedint in body must be of type integer: "string"',
      'spec.nestedint: Unsupported value: "x": supported values: "1", "2"',
      'spec.nestedstring: Invalid value: "boolean": spec.nestedstring in body must be of type string: "boolean"',
      'spec.nestedstring: Unsupported value: true: supported values: "a", "b"',
    ]);
    expect(fieldMessages({ type: 'string', enum: ['a'], nullable: true }, null)).toEqual(['spec.field: Unsupported value: null: supported values: "a"']);
  });

  describe('strings', () => {
    it('reports maxLength as Too long, counting runes', () => {
      expect(fieldMessages({ type: 'string', maxLength: 3 }, 'héé')).toEqual([]);
      expect(fieldMessages({ type: 'string', maxLength: 3 }, 'abcd')).toEqual(['spec.field: Too long: may not be more than 3 bytes']);
    });

    it('reports minLength', () => {
      expect(fieldMessages({ type: 'string', minLength: 3 }, 'ab')).toEqual([
        'spec.field: Invalid value: "ab": spec.field in body should be at least 3 chars long',
      ]);
    });

    it('reports a pattern mismatch', () => {
      expect(fieldMessages({ type: 'string', pattern: '^[a-z]+$' }, 'ABC')).toEqual([
        `spec.field: Invalid value: "ABC": spec.field in body should match '^[a-z]+$'`,
      ]);
    });

    it('stops at the first failing string check, as go-openapi does', () => {
      expect(fieldMessages({ type: 'string', maxLength: 2, pattern: '^[a-z]+$' }, 'ABC')).toEqual(['spec.field: Too long: may not be more than 2 bytes']);
    });
  });

  describe('formats', () => {
    it.each([
      ['date-time', '2024-01-02T03:04:05Z', 'yesterday'],
      ['date', '2024-02-29', '2023-02-29'],
      ['uuid', '123e4567-e89b-12d3-a456-426614174000', 'not-a-uuid'],
      ['ipv4', '10.0.0.1', '10.0.0.256'],
      ['ipv6', '::1', '1.2.3.4'],
      ['cidr', '10.0.0.0/8', '10.0.0.0/33'],
      ['hostname', 'example.com', 'exa mple'],
      ['mac', '00:1a:2b:3c:4d:5e', '00:1a:2b'],
      ['duration', '1h30m', 'soon'],
      ['byte', 'aGVsbG8=', 'hello!'],
      ['email', 'a@example.com', 'nobody'],
    ])('checks %s', (format, good, bad) => {
      expect(fieldMessages({ type: 'string', format }, good)).toEqual([]);
      expect(fieldMessages({ type: 'string', format }, bad)).toEqual([
        `spec.field: Invalid value: ${JSON.stringify(bad)}: spec.field in body must be of type ${format}: ${JSON.stringify(bad)}`,
      ]);
    });

    it('ignores the formats kube strips (int32, int64, float, double, unknown names)', () => {
      expect(fieldMessages({ type: 'integer', format: 'int32' }, 2 ** 40)).toEqual([]);
      expect(fieldMessages({ type: 'string', format: 'my-format' }, 'x')).toEqual([]);
    });
  });

  describe('numbers', () => {
    it('reports maximum and minimum, exclusive or not', () => {
      expect(messages(withSpec({ type: 'object', properties: { size: { type: 'integer', maximum: 10 } } }), { spec: { size: 11 } })).toEqual([
        'spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
      ]);
      expect(fieldMessages({ type: 'integer', maximum: 10, exclusiveMaximum: true }, 10)).toEqual([
        'spec.field: Invalid value: 10: spec.field in body should be less than 10',
      ]);
      expect(fieldMessages({ type: 'integer', minimum: 1 }, 0)).toEqual([
        'spec.field: Invalid value: 0: spec.field in body should be greater than or equal to 1',
      ]);
      expect(fieldMessages({ type: 'number', minimum: 0.5, exclusiveMinimum: true }, 0.5)).toEqual([
        'spec.field: Invalid value: 0.5: spec.field in body should be greater than 0.5',
      ]);
    });

    it('prints float limits as Go %v does', () => {
      expect(fieldMessages({ type: 'number', maximum: 1000000 }, 1000000.5)).toEqual([
        'spec.field: Invalid value: 1000000.5: spec.field in body should be less than or equal to 1e+06',
      ]);
    });

    it('reports multipleOf', () => {
      expect(fieldMessages({ type: 'integer', multipleOf: 3 }, 9)).toEqual([]);
      expect(fieldMessages({ type: 'integer', multipleOf: 3 }, 10)).toEqual(['spec.field: Invalid value: 10: spec.field in body should be a multiple of 3']);
      expect(fieldMessages({ type: 'number', multipleOf: 0.1 }, 0.3)).toEqual([]);
      expect(fieldMessages({ type: 'number', multipleOf: 0.5 }, 0.7)).toEqual([
        'spec.field: Invalid value: 0.7: spec.field in body should be a multiple of 0.5',
      ]);
    });
  });

  describe('arrays', () => {
    const list = (extra: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', items: { type: 'string' }, ...extra });

    it('validates items at [i]', () => {
      const schema = withSpec({
        type: 'object',
        properties: { containers: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
      });
      expect(messages(schema, { spec: { containers: [{ name: 'a' }, {}, { name: 1 }] } })).toEqual([
        'spec.containers[1].name: Required value',
        'spec.containers[2].name: Invalid value: "integer": spec.containers[2].name in body must be of type string: "integer"',
      ]);
    });

    it('reports minItems and maxItems', () => {
      expect(fieldMessages(list({ minItems: 2 }), ['a'])).toEqual(['spec.field: Invalid value: 1: spec.field in body should have at least 2 items']);
      expect(fieldMessages(list({ maxItems: 2 }), ['a', 'b', 'c'])).toEqual(['spec.field: Too many: 3: must have at most 2 items']);
    });

    it('reports uniqueItems', () => {
      expect(fieldMessages(list({ uniqueItems: true }), ['a', 'b', 'a'])).toEqual([
        `spec.field: Invalid value: "": spec.field in body shouldn't contain duplicates`,
      ]);
    });

    it('reports duplicates of x-kubernetes-list-type set', () => {
      expect(fieldMessages(list({ 'x-kubernetes-list-type': 'set' }), ['a', 'b', 'a', 'a', 'b'])).toEqual([
        'spec.field[2]: Duplicate value: "a"',
        'spec.field[4]: Duplicate value: "b"',
      ]);
    });

    it('reports duplicate keys of x-kubernetes-list-type map', () => {
      const schema: JSONSchemaProps = {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
      };
      expect(fieldMessages(schema, [{ name: 'a', port: 1 }, { name: 'b' }, { name: 'a', port: 2 }])).toEqual(['spec.field[2]: Duplicate value: {"name":"a"}']);
      expect(fieldMessages(schema, [{ port: 1 }, { port: 2 }])).toEqual(['spec.field[1]: Duplicate value: {}']);
    });

    it('reports list-type duplicates inside map values with field.Path keys', () => {
      const schema = withSpec({
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      });
      expect(messages(schema, { spec: { groups: ['x', 'x'] } })).toEqual(['spec[groups][1]: Duplicate value: "x"']);
    });
  });

  describe('objects', () => {
    it('validates additionalProperties values at .key', () => {
      const schema = withSpec({ type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } } });
      expect(messages(schema, { spec: { labels: { app: 'x', tier: 3 } } })).toEqual([
        'spec.labels.tier: Invalid value: "integer": spec.labels.tier in body must be of type string: "integer"',
      ]);
    });

    it('reports properties additionalProperties: false forbids', () => {
      expect(fieldMessages({ type: 'object', properties: { a: {} }, additionalProperties: false }, { a: 1, b: 2 })).toEqual([
        'spec.field: Invalid value: "b": spec.field.b in body is a forbidden property',
      ]);
    });

    it('reports maxProperties as Too many and minProperties as Invalid, skipping the rest', () => {
      const schema: JSONSchemaProps = { type: 'object', required: ['z'], maxProperties: 2 };
      expect(fieldMessages(schema, { a: 1, b: 2, c: 3 })).toEqual(['spec.field: Too many: 3: must have at most 2 items']);
      expect(fieldMessages({ type: 'object', minProperties: 2 }, { a: 1 })).toEqual([
        'spec.field: Invalid value: 1: spec.field in body should have at least 2 properties',
      ]);
    });

    it('validates metadata.name against the schema like any field', () => {
      const schema: JSONSchemaProps = {
        type: 'object',
        properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } },
      };
      expect(messages(schema, { metadata: { name: 'too-long', namespace: 'default' } })).toEqual(['metadata.name: Too long: may not be more than 5 bytes']);
    });
  });

  describe('composition', () => {
    it('reports anyOf with the summary at <nil> and the closest alternative', () => {
      const schema: JSONSchemaProps = { nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
      expect(fieldMessages(schema, 42)).toEqual([]);
      expect(fieldMessages(schema, true)).toEqual([
        'spec.field: Invalid value: "boolean": spec.field in body must be of type integer,string: "boolean"',
        '<nil>: Invalid value: "": "spec.field" must validate at least one schema (anyOf)',
        'spec.field: Invalid value: "boolean": spec.field in body must be of type integer: "boolean"',
      ]);
    });

    it('reports allOf, saying when none validated', () => {
      const schema: JSONSchemaProps = { type: 'integer', allOf: [{ minimum: 5 }, { maximum: 3 }] };
      expect(fieldMessages(schema, 4)).toEqual([
        'spec.field: Invalid value: 4: spec.field in body should be greater than or equal to 5',
        'spec.field: Invalid value: 4: spec.field in body should be less than or equal to 3',
        '<nil>: Invalid value: "": "spec.field" must validate all the schemas (allOf). None validated',
      ]);
      expect(fieldMessages({ type: 'integer', allOf: [{ minimum: 5 }, { maximum: 10 }] }, 4)).toEqual([
        'spec.field: Invalid value: 4: spec.field in body should be greater than or equal to 5',
        '<nil>: Invalid value: "": "spec.field" must validate all the schemas (allOf)',
      ]);
    });

    it('reports oneOf with none or several valid', () => {
      const schema: JSONSchemaProps = { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] };
      expect(fieldMessages(schema, { a: 1 })).toEqual([]);
      expect(fieldMessages(schema, {})).toEqual([
        '<nil>: Invalid value: "": "spec.field" must validate one and only one schema (oneOf). Found none valid',
        'spec.field.a: Required value',
      ]);
      expect(fieldMessages(schema, { a: 1, b: 2 })).toEqual([
        '<nil>: Invalid value: "": "spec.field" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      ]);
    });

    it('reports not', () => {
      expect(fieldMessages({ type: 'object', not: { required: ['a'] } }, { a: 1 })).toEqual([
        '<nil>: Invalid value: "": "spec.field" must not validate the schema (not)',
      ]);
    });
  });
});
