import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { jsonClone } from '../api/json-clone';
import { FieldSet } from './field-set';
import { withGoZerosOfKind } from './go-zeros';
import { changedFieldsV1, compare, compareInSlices, fieldSetOf, merge, prunedPathsOf } from './typed-ops';
import { kindSchema, type SchemaNode } from './typed-schema';

const pod = kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;

describe('keyed lists whose keys have defaults', () => {
  test('an item without its protocol is keyed with the default, as structured-merge-diff keys it', () => {
    const set = fieldSetOf({ spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } }, pod);
    expect(set.toFieldsV1()).toEqual({
      'f:spec': {
        'f:containers': {
          'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } },
        },
      },
    });
  });

  test('merging it into the defaulted live item changes nothing, where it used to add a second port', () => {
    const live = { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } };
    expect(merge(live, { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } }, pod)).toEqual(live);
    const udp = merge(live, { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'UDP' }] }] } }, pod) as typeof live;
    expect(udp.spec.containers[0].ports).toEqual([
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 80, protocol: 'UDP' },
    ]);
  });
});

describe('compare in slices (issue 25)', () => {
  test('walks a large object in many slices and finds what compare finds, down to the order of its paths', async () => {
    const containers = (n: number, image: string) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image, ports: [{ containerPort: i + 1 }] }));
    const live = { metadata: { labels: { a: 'b', gone: 'x' } }, spec: { containers: containers(2000, 'x') } };
    const next = { metadata: { labels: { a: 'c' } }, spec: { containers: [...containers(1000, 'x'), ...containers(1500, 'y').slice(1000)], hostname: 'h' } };
    let slices = 0;
    const sliced = await compareInSlices(live, next, pod, async () => {
      slices++;
    });
    const whole = compare(live, next, pod);
    expect(slices).toBeGreaterThan(10);
    for (const part of ['added', 'modified', 'removed'] as const) {
      expect([...sliced[part].paths]).toEqual([...whole[part].paths]);
      expect(sliced[part].toFieldsV1()).toEqual(whole[part].toFieldsV1());
    }
    const everything = fieldSetOf(next, pod);
    expect(JSON.stringify(await everything.toFieldsV1InSlices(async () => void slices++))).toBe(JSON.stringify(everything.toFieldsV1()));
    // "." first, then the keys in FieldsV1 order, as kube writes them
    expect(JSON.stringify(fieldSetOf({ spec: { containers: [{ name: 'c', image: 'x' }] } }, pod).toFieldsV1())).toBe(
      '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}}}}',
    );
    expect(whole.added.toFieldsV1()).toMatchObject({ 'f:spec': { 'f:hostname': {} } });
    expect(whole.modified.toFieldsV1()).toMatchObject({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"c1000"}': { 'f:image': {} } } },
    });
    expect(whole.removed.toFieldsV1()).toMatchObject({
      'f:metadata': { 'f:labels': { 'f:gone': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"c1999"}': { '.': {} } } },
    });
  });
});

describe('changedFieldsV1, the one-walk FieldsV1 of what a value adds or modifies', () => {
  interface Testdata {
    objects: Record<string, { json: Record<string, unknown> }>;
  }
  const testdata = JSON.parse(
    gunzipSync(readFileSync(path.resolve(__dirname, '../../test/fixtures/release/api-testdata.json.gz'))).toString('utf8'),
  ) as Testdata;
  const pruned = ['f:apiVersion', 'f:kind', 'f:metadata\u0000f:name', 'f:metadata\u0000f:uid', 'f:status', 'f:spec\u0000f:template\u0000f:metadata'];
  const typed = Object.entries(testdata.objects).flatMap(([name, { json }]) => {
    const [group, version] = String(json.apiVersion).includes('/') ? String(json.apiVersion).split('/') : ['', String(json.apiVersion)];
    const schema = kindSchema({ group, version, kind: String(json.kind) });
    return schema ? [[name, json, schema] as const] : [];
  });

  /** What the field manager did before: compare, the sets filtered, FieldSet.toFieldsV1. */
  function throughSets(lhs: unknown, rhs: unknown, schema: SchemaNode): Record<string, unknown> | null {
    const cmp = compare(lhs, rhs, schema);
    const changed = cmp.added
      .union(cmp.modified)
      .withoutPrefixes(FieldSet.of(pruned))
      .difference(FieldSet.of(['f:metadata']));
    return changed.empty ? null : changed.toFieldsV1();
  }

  const walked = (lhs: unknown, rhs: unknown, schema: SchemaNode) => changedFieldsV1(lhs, rhs, schema, prunedPathsOf(pruned), new Set(['f:metadata']));

  test('the release has typed test data for most kinds', () => {
    expect(typed.length).toBeGreaterThan(150);
  });

  test.each(typed)('%s: a create of every field writes the same tree, key order included', (_name, json, schema) => {
    const apiVersion = String(json.apiVersion);
    const kind = String(json.kind);
    const empty = withGoZerosOfKind(apiVersion, kind, { metadata: {} });
    const full = withGoZerosOfKind(apiVersion, kind, jsonClone(json));
    const tree = walked(empty, full, schema);
    expect(tree).not.toBeNull();
    expect(JSON.stringify(tree)).toBe(JSON.stringify(throughSets(empty, full, schema)));
    // Half of the fields changed, the other half as they were; nothing changed; everything removed.
    const half = jsonClone(full);
    for (const [i, key] of Object.keys(half).entries()) if (i % 2 === 0 && key !== 'metadata') delete half[key];
    expect(JSON.stringify(walked(half, full, schema))).toBe(JSON.stringify(throughSets(half, full, schema)));
    expect(walked(full, jsonClone(full), schema)).toBeNull();
    expect(JSON.stringify(walked(full, empty, schema))).toBe(JSON.stringify(throughSets(full, empty, schema)));
  });

  test('metadata itself is never owned, only its fields', () => {
    expect(walked({}, { metadata: {} }, pod)).toBeNull();
    expect(throughSets({}, { metadata: {} }, pod)).toBeNull();
    const labelled = { metadata: { name: 'n', labels: { a: 'b' } } };
    expect(walked({}, labelled, pod)).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
    expect(walked({}, labelled, pod)).toEqual(throughSets({}, labelled, pod));
  });

  test('an object too large to walk at once is left to the sliced comparison', () => {
    const containers = Array.from({ length: 3000 }, (_, i) => ({ name: `c${i}`, image: 'x' }));
    expect(walked({}, { spec: { containers } }, pod)).toBeUndefined();
    expect(walked({}, { spec: { containers: containers.slice(0, 10) } }, pod)).toEqual(throughSets({}, { spec: { containers: containers.slice(0, 10) } }, pod));
  });
});
