import { compare, compareInSlices, fieldSetOf, merge } from './typed-ops';
import { kindSchema } from './typed-schema';

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
