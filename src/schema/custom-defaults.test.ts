import { applySchemaDefaults } from './custom-defaults';
import type { JSONSchemaProps } from './json-schema-props';

// Cases after apiextensions-apiserver's pkg/apiserver/schema/defaulting algorithm_test.go.
describe('applySchemaDefaults', () => {
  it('fills missing properties with deep copies of their defaults', () => {
    const def = { a: [1] };
    const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', default: def } } };
    const one: Record<string, unknown> = {};
    const two: Record<string, unknown> = {};
    applySchemaDefaults(schema, one);
    applySchemaDefaults(schema, two);
    expect(one).toEqual({ spec: { a: [1] } });
    (one.spec as { a: number[] }).a.push(2);
    expect(two).toEqual({ spec: { a: [1] } });
    expect(def).toEqual({ a: [1] });
  });

  it('keeps values that are set, falsy ones too', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { n: { type: 'integer', default: 3 }, s: { type: 'string', default: 'x' }, b: { type: 'boolean', default: true } },
    };
    const obj = { n: 0, s: '', b: false };
    applySchemaDefaults(schema, obj);
    expect(obj).toEqual({ n: 0, s: '', b: false });
  });

  it('applies defaults inside a default, top-down', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: { type: 'object', default: {}, properties: { replicas: { type: 'integer', default: 1 }, mode: { type: 'string' } } },
      },
    };
    const obj: Record<string, unknown> = {};
    applySchemaDefaults(schema, obj);
    expect(obj).toEqual({ spec: { replicas: 1 } });
  });

  it('replaces null with the default unless the field is nullable', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string', default: 'x' }, b: { type: 'string', default: 'y', nullable: true } },
    };
    const obj = { a: null, b: null };
    applySchemaDefaults(schema, obj);
    expect(obj).toEqual({ a: 'x', b: null });
  });

  it('defaults list items and map values, and their nulls', () => {
    const item: JSONSchemaProps = { type: 'object', default: { kind: 'empty' }, properties: { port: { type: 'integer', default: 80 } } };
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        list: { type: 'array', items: item },
        map: { type: 'object', additionalProperties: item },
        plain: { type: 'array', items: { type: 'string' } },
      },
    };
    const obj = { list: [{}, null, { port: 8080 }], map: { a: {}, b: null }, plain: [null] };
    applySchemaDefaults(schema, obj);
    expect(obj).toEqual({
      list: [{ port: 80 }, { kind: 'empty', port: 80 }, { port: 8080 }],
      map: { a: { port: 80 }, b: { kind: 'empty', port: 80 } },
      plain: [null],
    });
  });

  it('leaves fields the schema does not describe alone', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'integer', default: 1 } } } } };
    const obj = { other: { a: null }, spec: 'not an object' };
    applySchemaDefaults(schema, obj);
    expect(obj).toEqual({ other: { a: null }, spec: 'not an object' });
  });
});
