import { StatusError } from '../api/errors';
import { deployments } from '../resources/deployments';
import { patchSchemaFor } from '../schema/proto-schema';
import { applyStrategicMergePatch, applyStrategicMergePatchInSlices, type FieldPatchMeta, type PatchSchema } from './strategic-merge';

/** A hand-made schema: fields map to their patch metadata. */
function schema(fields: Record<string, Partial<FieldPatchMeta>>): PatchSchema {
  return {
    field: (name) => (Object.prototype.hasOwnProperty.call(fields, name) ? { strategies: [], schema: null, ...fields[name] } : null),
  };
}

const container = schema({ env: { strategies: ['merge'], mergeKey: 'name' } });
const pod = schema({
  containers: { strategies: ['merge'], mergeKey: 'name', schema: container },
  finalizers: { strategies: ['merge'] },
  args: {},
  volumes: { strategies: ['merge', 'retainKeys'], mergeKey: 'name' },
  strategy: { strategies: ['retainKeys'] },
  selector: { strategies: ['replace'] },
});
const smp = (original: unknown, patch: unknown, s: PatchSchema | null = pod) => applyStrategicMergePatch(original, patch, s);

function errorOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('no error');
}

describe('maps', () => {
  test('merge key by key, null deletes', () => {
    expect(smp({ a: 1, b: { c: 1, d: 2 } }, { b: { c: null, e: 3 }, f: 4 })).toEqual({ a: 1, b: { d: 2, e: 3 }, f: 4 });
  });

  test('a field with the replace strategy is replaced whole', () => {
    expect(smp({ selector: { a: '1', b: '2' } }, { selector: { c: '3' } })).toEqual({ selector: { c: '3' } });
  });

  test('$patch: replace and $patch: delete on a map', () => {
    expect(smp({ spec: { a: 1, b: 2 } }, { spec: { $patch: 'replace', c: 3 } })).toEqual({ spec: { c: 3 } });
    expect(smp({ spec: { a: 1 }, keep: true }, { spec: { $patch: 'delete' } })).toEqual({ spec: {}, keep: true });
  });

  test('$patch: merge is not a directive Kubernetes knows', () => {
    expect(errorOf(() => smp({ spec: { a: 1 } }, { spec: { $patch: 'merge', b: 2 } })).message).toBe('unknown patch type: merge in map: map[$patch:merge b:2]');
  });

  test('a value the original lacks is taken without directives or nulls', () => {
    expect(smp({}, { spec: { a: null, b: { $retainKeys: ['c'], c: 1 }, list: [{ name: 'x', $patch: 'delete' }, { name: 'y' }] } })).toEqual({
      spec: { b: { c: 1 }, list: [{ name: 'y' }] },
    });
  });
});

describe('lists of maps with a merge key', () => {
  const original = {
    containers: [
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:1' },
    ],
  };

  test('items merge by key and keep their place', () => {
    expect(smp(original, { containers: [{ name: 'b', image: 'b:2' }] })).toEqual({
      containers: [
        { name: 'a', image: 'a:1' },
        { name: 'b', image: 'b:2' },
      ],
    });
  });

  test('items the list lacks go first (mergeSortedSlice puts unknown patch items ahead)', () => {
    expect(smp(original, { containers: [{ name: 'c', image: 'c:1' }] })).toEqual({
      containers: [
        { name: 'c', image: 'c:1' },
        { name: 'a', image: 'a:1' },
        { name: 'b', image: 'b:1' },
      ],
    });
  });

  test('nested lists merge by their own key', () => {
    const withEnv = {
      containers: [
        {
          name: 'a',
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
        },
      ],
    };
    expect(smp(withEnv, { containers: [{ name: 'a', env: [{ name: 'Y', value: '3' }] }] })).toEqual({
      containers: [
        {
          name: 'a',
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '3' },
          ],
        },
      ],
    });
  });

  test('$patch: delete removes an item by key', () => {
    expect(smp(original, { containers: [{ name: 'a', $patch: 'delete' }] })).toEqual({ containers: [{ name: 'b', image: 'b:1' }] });
  });

  test('$patch: replace replaces the whole list', () => {
    expect(smp(original, { containers: [{ name: 'z' }, { $patch: 'replace' }] })).toEqual({ containers: [{ name: 'z' }] });
  });

  test('$patch: merge in a list is an error', () => {
    expect(errorOf(() => smp(original, { containers: [{ $patch: 'merge' }] })).message).toBe('merging lists cannot yet be specified in the patch');
  });

  test('an item without the merge key is an error', () => {
    expect(errorOf(() => smp(original, { containers: [{ image: 'x' }] })).message).toBe('map: map[image:x] does not contain declared merge key: name');
  });

  test('$setElementOrder orders the merged list; a server-only item goes before the first patch item it preceded live', () => {
    const live = { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] };
    // Ordered items: c, a, d. Server-only b preceded c in the live list, so it leads.
    expect(smp(live, { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'd' }], containers: [{ name: 'd', image: 'd:1' }] })).toEqual({
      containers: [{ name: 'b' }, { name: 'c' }, { name: 'a' }, { name: 'd', image: 'd:1' }],
    });
    // b can only be placed against items the live list has; new c wins the comparison and goes first.
    expect(
      smp({ containers: [{ name: 'a' }, { name: 'b' }] }, { '$setElementOrder/containers': [{ name: 'a' }, { name: 'c' }], containers: [{ name: 'c' }] }),
    ).toEqual({
      containers: [{ name: 'a' }, { name: 'c' }, { name: 'b' }],
    });
  });

  test('$setElementOrder alone reorders without changing content', () => {
    const live = { containers: [{ name: 'a' }, { name: 'b' }] };
    expect(smp(live, { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] })).toEqual({ containers: [{ name: 'b' }, { name: 'a' }] });
  });
});

describe('lists of primitives', () => {
  test('with the merge strategy: union, new values first', () => {
    expect(smp({ finalizers: ['a', 'b'] }, { finalizers: ['b', 'c'] })).toEqual({ finalizers: ['a', 'b', 'c'] });
    expect(smp({ finalizers: ['a', 'b'] }, { finalizers: ['c'] })).toEqual({ finalizers: ['c', 'a', 'b'] });
  });

  test('$deleteFromPrimitiveList removes values; a missing list stays missing', () => {
    expect(smp({ finalizers: ['a', 'b', 'c'] }, { '$deleteFromPrimitiveList/finalizers': ['b'] })).toEqual({ finalizers: ['a', 'c'] });
    expect(smp({}, { '$deleteFromPrimitiveList/finalizers': ['b'] })).toEqual({});
  });

  test('$setElementOrder with $deleteFromPrimitiveList, as kubectl apply sends them', () => {
    expect(smp({ finalizers: ['a', 'b', 'c'] }, { '$setElementOrder/finalizers': ['c', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'] })).toEqual({
      finalizers: ['c', 'a'],
    });
  });

  test('without a merge strategy a list is replaced', () => {
    expect(smp({ args: ['a', 'b'] }, { args: ['c'] })).toEqual({ args: ['c'] });
    expect(smp({ other: [{ name: 'a', x: 1 }] }, { other: [{ name: 'a', y: 2 }] })).toEqual({ other: [{ name: 'a', y: 2 }] });
  });
});

describe('$retainKeys', () => {
  test('keys outside the list are cleared', () => {
    expect(smp({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } }, { strategy: { $retainKeys: ['type'], type: 'Recreate' } })).toEqual({
      strategy: { type: 'Recreate' },
    });
  });

  test('a patched key missing from the list is a bad request', () => {
    const err = errorOf(() => smp({ strategy: {} }, { strategy: { $retainKeys: ['type'], other: 1 } }));
    expect(err.status).toMatchObject({ code: 400, message: 'invalid patch format of retainKeys' });
  });

  test('on list items of a merge,retainKeys list', () => {
    const live = { volumes: [{ name: 'v', emptyDir: {} }] };
    expect(smp(live, { volumes: [{ name: 'v', $retainKeys: ['name', 'configMap'], configMap: { name: 'cm' } }] })).toEqual({
      volumes: [{ name: 'v', configMap: { name: 'cm' } }],
    });
  });
});

describe('safety', () => {
  test('"__proto__" keys in a patch stay ordinary keys', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": "yes"}, "spec": {"__proto__": {"x": 1}}}');
    const out = smp({ spec: { a: 1 } }, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(out.spec)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"spec":{"a":1,"__proto__":{"x":1}},"__proto__":{"polluted":"yes"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('the original is not modified', () => {
    const original = { containers: [{ name: 'a', image: 'a:1' }], meta: { x: 1 } };
    smp(original, { containers: [{ name: 'a', image: 'a:2' }], meta: { x: null } });
    expect(original).toEqual({ containers: [{ name: 'a', image: 'a:1' }], meta: { x: 1 } });
  });

  test('a patch that is not an object is a bad request', () => {
    expect(errorOf(() => smp({}, [1])).status.code).toBe(400);
  });
});

describe('with the Deployment schema from the .proto files', () => {
  const schemaOf = patchSchemaFor(deployments);
  const deployment = {
    spec: {
      replicas: 1,
      template: {
        spec: {
          containers: [
            {
              name: 'app',
              image: 'app:1',
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
            },
            { name: 'sidecar', image: 'proxy:1' },
          ],
          volumes: [{ name: 'data', emptyDir: {} }],
        },
      },
    },
  };

  test('the schema exists', () => expect(schemaOf).not.toBeNull());

  test('containers merge by name, env by name, volumes by name', () => {
    const patch = {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'app', image: 'app:2', env: [{ name: 'B', value: '3' }] }],
            volumes: [{ name: 'cache', emptyDir: { medium: 'Memory' } }],
          },
        },
      },
    };
    expect(smp(deployment, patch, schemaOf)).toEqual({
      spec: {
        replicas: 1,
        template: {
          spec: {
            containers: [
              {
                name: 'app',
                image: 'app:2',
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', value: '3' },
                ],
              },
              { name: 'sidecar', image: 'proxy:1' },
            ],
            volumes: [
              { name: 'cache', emptyDir: { medium: 'Memory' } },
              { name: 'data', emptyDir: {} },
            ],
          },
        },
      },
    });
  });

  test('container args have no merge strategy and are replaced', () => {
    const live = { spec: { template: { spec: { containers: [{ name: 'app', args: ['--a', '--b'] }] } } } };
    const patch = { spec: { template: { spec: { containers: [{ name: 'app', args: ['--c'] }] } } } };
    expect(smp(live, patch, schemaOf)).toEqual({ spec: { template: { spec: { containers: [{ name: 'app', args: ['--c'] }] } } } });
  });
});

describe('work linear in the list sizes', () => {
  test('20,000 containers merge into a list of 10,000 in well under 2 s, in the order Go gives', () => {
    const names = (from: number, n: number): { name: string }[] => Array.from({ length: n }, (_, i) => ({ name: `c${from + i}` }));
    const live = { containers: names(0, 10_000) };
    // the patch reverses half the live items and adds 10,000 new ones
    const patch = { containers: [...names(5_000, 15_000).reverse(), { name: 'c0', image: 'x' }] };
    const started = Date.now();
    const out = smp(live, patch) as { containers: { name: string; image?: string }[] };
    expect(Date.now() - started).toBeLessThan(2000);
    expect(out.containers).toHaveLength(20_000);
    // mergeSortedSlice: the new items lead; server-only c1..c4999 go before c9999, which the live list puts after them
    expect(out.containers.slice(0, 2).map((c) => c.name)).toEqual(['c19999', 'c19998']);
    expect(out.containers.slice(9_999, 10_002).map((c) => c.name)).toEqual(['c10000', 'c1', 'c2']);
    expect(out.containers.slice(14_998, 15_000).map((c) => c.name)).toEqual(['c4999', 'c9999']);
    expect(out.containers[19_999]).toEqual({ name: 'c0', image: 'x' });
  });

  test('deleting 10,000 items by key, and a $setElementOrder of 10,000', () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `c${i}`);
    const live = { containers: names.map((name) => ({ name })) };
    const started = Date.now();
    const out = smp(live, {
      containers: names.filter((_, i) => i % 2 === 0).map((name) => ({ name, $patch: 'delete' })),
      '$setElementOrder/containers': [...names].reverse().map((name) => ({ name })),
    }) as { containers: { name: string }[] };
    expect(Date.now() - started).toBeLessThan(2000);
    expect(out.containers.map((c) => c.name)).toEqual(names.filter((_, i) => i % 2 === 1).reverse());
  });
});

describe('in slices (issue 25)', () => {
  test('a long list is merged in slices, with the order and contents of the whole run', async () => {
    const original = { containers: Array.from({ length: 500 }, (_, i) => ({ name: `c${i}`, image: 'x', env: [{ name: 'a', value: '1' }] })) };
    const patch = {
      containers: [
        ...Array.from({ length: 1000 }, (_, i) => ({ name: `c${i * 2}`, image: 'y', env: [{ name: 'b', value: '2' }] })),
        { name: 'c1', $patch: 'delete' },
      ],
    };
    let slices = 0;
    const sliced = await applyStrategicMergePatchInSlices(structuredClone(original), patch, pod, async () => void slices++);
    expect(slices).toBeGreaterThan(1000 / 64);
    expect(sliced).toEqual(smp(structuredClone(original), patch));
    const containers = (sliced as typeof original).containers;
    expect(containers).toHaveLength(1249);
    // mergeSortedSlice: the patch's items lead, in its order
    expect(containers[0]).toEqual({
      name: 'c0',
      image: 'y',
      env: [
        { name: 'b', value: '2' },
        { name: 'a', value: '1' },
      ],
    });
  });
});
