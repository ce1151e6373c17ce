import { StatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import { FieldManager } from '../registry/field-manager';
import { defaultStrategy } from '../registry/strategy';
import { defineResource } from '../registry/resource-definition';
import { elements } from './field-set';
import type { JSONSchemaProps } from './json-schema-props';
import { customResourceSchema } from './openapi-typed-schema';
import { typedDecode } from './typed-decode';
import { fieldSetOf } from './typed-ops';
import { objectMetaSchema, type ObjectNode, type SchemaNode } from './typed-schema';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        size: { type: 'number' },
        enabled: { type: 'boolean' },
        until: { type: 'string', format: 'date-time' },
        port: { 'x-kubernetes-int-or-string': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        ref: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { name: { type: 'string' } } },
        tags: { type: 'array', items: { type: 'string' } },
        ports: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } },
        containers: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'string' } } },
        },
        note: { type: 'string', nullable: true },
        mode: { type: 'string', default: 'auto' },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
        anything: { 'x-kubernetes-preserve-unknown-fields': true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
        },
        untyped: {},
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

const widget = customResourceSchema(schema, 'Widget');

function nodeAt(root: ObjectNode, ...path: string[]): SchemaNode {
  let node: SchemaNode = root;
  for (const name of path) {
    if (node.kind !== 'object') throw new Error(`${name}: not under an object`);
    const field = node.field(name);
    if (!field) throw new Error(`${name}: no such field`);
    node = field.node;
  }
  return node;
}

describe('customResourceSchema', () => {
  it('has apiVersion, kind and ObjectMeta at the root beside the schema properties', () => {
    expect(widget.fieldNames().sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(nodeAt(widget, 'apiVersion')).toEqual({ kind: 'scalar', type: 'string' });
    expect(nodeAt(widget, 'metadata')).toBe(objectMetaSchema());
    expect(widget).toMatchObject({ kind: 'object', name: 'Widget', atomic: false, preservesUnknown: false, origin: 'openapi' });
  });

  it('maps scalars, keeping formatted strings plain strings', () => {
    expect(nodeAt(widget, 'spec', 'replicas')).toEqual({ kind: 'scalar', type: 'int64' });
    expect(nodeAt(widget, 'spec', 'size')).toEqual({ kind: 'scalar', type: 'number' });
    expect(nodeAt(widget, 'spec', 'enabled')).toEqual({ kind: 'scalar', type: 'boolean' });
    expect(nodeAt(widget, 'spec', 'until')).toEqual({ kind: 'scalar', type: 'string' });
    expect(nodeAt(widget, 'spec', 'port')).toEqual({ kind: 'int-or-string' });
    expect(nodeAt(widget, 'spec', 'untyped')).toEqual({ kind: 'free' });
  });

  it('maps additionalProperties to maps, atomic with x-kubernetes-map-type', () => {
    expect(nodeAt(widget, 'spec', 'labels')).toEqual({ kind: 'map', values: { kind: 'scalar', type: 'string' }, atomic: false });
    expect(nodeAt(widget, 'spec', 'selector')).toMatchObject({ kind: 'map', atomic: true });
    expect(nodeAt(widget, 'spec', 'ref')).toMatchObject({ kind: 'object', atomic: true });
  });

  it('maps arrays to lists, atomic unless x-kubernetes-list-type says otherwise', () => {
    expect(nodeAt(widget, 'spec', 'tags')).toMatchObject({ kind: 'list', listType: 'atomic', keys: [] });
    expect(nodeAt(widget, 'spec', 'ports')).toMatchObject({ kind: 'list', listType: 'set', keys: [] });
    expect(nodeAt(widget, 'spec', 'containers')).toMatchObject({ kind: 'list', listType: 'map', keys: ['name'] });
  });

  it('marks preserve-unknown-fields objects, with or without properties', () => {
    expect(nodeAt(widget, 'spec', 'config')).toMatchObject({ kind: 'object', preservesUnknown: true });
    expect(nodeAt(widget, 'spec', 'anything')).toMatchObject({ kind: 'object', preservesUnknown: true });
    const extra = nodeAt(widget, 'spec', 'extra') as ObjectNode;
    expect(extra.preservesUnknown).toBe(true);
    expect(extra.fieldNames()).toEqual(['known']);
  });

  it('gives embedded resources apiVersion, kind and ObjectMeta', () => {
    const template = nodeAt(widget, 'spec', 'template') as ObjectNode;
    expect(template.fieldNames().sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(nodeAt(template, 'metadata')).toBe(objectMetaSchema());
  });

  it('keeps nulls where the schema is nullable or defaulted', () => {
    expect(nodeAt(widget, 'spec', 'note')).toEqual({ kind: 'scalar', type: 'string', keepsNull: true });
    expect(nodeAt(widget, 'spec', 'mode')).toEqual({ kind: 'scalar', type: 'string', keepsNull: true });
    expect(nodeAt(widget, 'spec', 'replicas')).not.toHaveProperty('keepsNull');
  });
});

describe('typedDecode on a custom resource', () => {
  const decode = (obj: Record<string, unknown>, root: ObjectNode = widget) => ({ report: typedDecode(obj, root), obj });

  it('prunes and reports unknown fields with kube-apiserver paths: metadata first, then sorted', () => {
    const { report, obj } = decode({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      spec: { zeta: 1, containers: [{ name: 'a', bogus: true }], labels: { a: 'b' }, alpha: 2 },
      metadata: { name: 'w', bogus: 1 },
      status: { phase: 'Ready', extra: 'x' },
      top: true,
    });
    expect(report).toEqual({
      unknown: ['metadata.bogus', 'spec.alpha', 'spec.containers[0].bogus', 'spec.zeta', 'status.extra', 'top'],
      typeError: null,
      converterError: null,
    });
    expect(obj).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      spec: { containers: [{ name: 'a' }], labels: { a: 'b' } },
      metadata: { name: 'w' },
      status: { phase: 'Ready' },
    });
  });

  it('keeps unknown fields under preserve-unknown-fields, but prunes below a declared field there', () => {
    const { report, obj } = decode({
      spec: {
        config: { any: { deep: [1, { x: null }] } },
        extra: { known: 'k', other: { y: 1 } },
        anything: 'a scalar',
      },
    });
    expect(report.unknown).toEqual([]);
    expect(obj).toEqual({ spec: { config: { any: { deep: [1, { x: null }] } }, extra: { known: 'k', other: { y: 1 } }, anything: 'a scalar' } });

    const nested = customResourceSchema(
      {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { inner: { type: 'object', properties: { a: { type: 'string' } } } },
          },
        },
      },
      'Thing',
    );
    const { report: r2, obj: o2 } = decode({ spec: { free: 1, inner: { a: 'x', b: 'y' } } }, nested);
    expect(r2.unknown).toEqual(['spec.inner.b']);
    expect(o2).toEqual({ spec: { free: 1, inner: { a: 'x' } } });
  });

  it('keeps everything below a root that preserves unknown fields', () => {
    const open = customResourceSchema(
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } },
      'Open',
    );
    const { report, obj } = decode(
      { apiVersion: 'example.com/v1', kind: 'Open', metadata: { name: 'o', junk: 1 }, data: { x: 1 }, spec: { a: 'x', b: 1 } },
      open,
    );
    expect(report.unknown).toEqual(['metadata.junk', 'spec.b']);
    expect(obj).toEqual({ apiVersion: 'example.com/v1', kind: 'Open', metadata: { name: 'o' }, data: { x: 1 }, spec: { a: 'x' } });
  });

  it('reads embedded resources: their metadata as ObjectMeta, reported after the schema paths', () => {
    const { report, obj } = decode({
      spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: {}, nope: 1 }, spec: { image: 'i', zzz: 1 }, other: 1 } },
    });
    expect(report.unknown).toEqual(['spec.template.other', 'spec.template.spec.zzz', 'spec.template.metadata.nope']);
    expect(obj).toEqual({ spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { image: 'i' } } } });
  });

  it('fails on type errors in an embedded ObjectMeta, as Go decoding does', () => {
    expect(decode({ spec: { template: { metadata: { name: 5 } } } }).report.typeError).toMatch(/cannot unmarshal number into Go struct field ObjectMeta/);
  });

  it('leaves wrong types to validation, pruning the fields of a wrong-shaped value', () => {
    const { report, obj } = decode({
      spec: { replicas: 'three', enabled: 'yes', tags: { a: 1 }, port: [{ b: 1 }, 2], labels: 'x', ref: [1], until: 5, anything: [{ c: 1 }] },
    });
    expect(report).toEqual({ unknown: ['spec.port[0].b', 'spec.tags.a'], typeError: null, converterError: null });
    expect(obj).toEqual({ spec: { replicas: 'three', enabled: 'yes', tags: {}, port: [{}, 2], labels: 'x', ref: [1], until: 5, anything: [{ c: 1 }] } });
  });

  it('drops nulls unless the schema is nullable or defaulted, in fields and map values; keeps them in lists and preserved fields', () => {
    const { obj } = decode({
      spec: { replicas: null, note: null, mode: null, labels: { a: null, b: 'x' }, tags: ['a', null], config: { x: null } },
      status: null,
    });
    expect(obj).toEqual({ spec: { note: null, mode: null, labels: { b: 'x' }, tags: ['a', null], config: { x: null } } });
  });

  it('keeps empty maps and lists, which have no omitempty', () => {
    const { obj } = decode({ spec: { labels: {}, tags: [], containers: [] } });
    expect(obj).toEqual({ spec: { labels: {}, tags: [], containers: [] } });
  });
});

describe('field sets and server-side apply on a custom resource', () => {
  const printed = (obj: unknown): string[] => [...fieldSetOf(obj, widget).paths].map((p) => elements(p).join('/')).sort();

  it('shows keyed list items and deduced fields under preserve-unknown-fields', () => {
    const set = printed({
      spec: { containers: [{ name: 'x', image: 'i' }], ports: [80], tags: ['a'], selector: { a: 'b' }, config: { a: { b: 1 }, l: [1] } },
    });
    expect(set).toEqual([
      'f:spec/f:config/f:a',
      'f:spec/f:config/f:a/f:b',
      'f:spec/f:config/f:l',
      'f:spec/f:containers/k:{"name":"x"}',
      'f:spec/f:containers/k:{"name":"x"}/f:image',
      'f:spec/f:containers/k:{"name":"x"}/f:name',
      'f:spec/f:ports/v:80',
      'f:spec/f:selector',
      'f:spec/f:tags',
    ]);
  });

  const def = defineResource({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, strategy: defaultStrategy });
  const manager = new FieldManager(def, widget, () => '2027-01-15T08:00:00Z');
  const config = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default' },
    spec,
  });

  it('merges keyed lists and preserved objects from two appliers', () => {
    const first = manager.apply(null, config({ containers: [{ name: 'a', image: 'one' }], config: { x: 1 } }), 'alice', false, '');
    const second = manager.apply(first, config({ containers: [{ name: 'b', image: 'two' }], config: { y: 2 } }), 'bob', false, '');
    expect(second.spec).toEqual({
      containers: [
        { name: 'a', image: 'one' },
        { name: 'b', image: 'two' },
      ],
      config: { x: 1, y: 2 },
    });
    expect(second.metadata.managedFields?.map((e) => e.manager)).toEqual(['alice', 'bob']);
    expect(second.metadata.managedFields?.[1].fieldsV1).toEqual({
      'f:spec': { 'f:config': { 'f:y': {} }, 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    });
  });

  it('refuses to change a field another applier owns, unless forced', () => {
    const first = manager.apply(null, config({ containers: [{ name: 'a', image: 'one' }], config: { x: 1 } }), 'alice', false, '');
    let error: unknown;
    try {
      manager.apply(first, config({ containers: [{ name: 'a', image: 'two' }] }), 'bob', false, '');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).status.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.containers[name="a"].image');
    const forced = manager.apply(first, config({ containers: [{ name: 'a', image: 'two' }] }), 'bob', true, '');
    expect(forced.spec).toEqual({ containers: [{ name: 'a', image: 'two' }], config: { x: 1 } });
  });
});
