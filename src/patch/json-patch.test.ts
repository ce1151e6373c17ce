import { statusOf } from '../../test/harness/status-of';
import { applyJsonPatch, applyJsonPatchInSlices, MAX_JSON_PATCH_COPY_BYTES } from './json-patch';
import { v4PatchedJson } from './v4-bytes';

const doc = { metadata: { name: 'c', labels: { a: '1' } }, data: { k: 'v' }, list: [1, 2, 3] };

describe('applyJsonPatch (RFC 6902)', () => {
  test('add, replace, remove, move, copy, and a passing test', () => {
    const out = applyJsonPatch(doc, [
      { op: 'test', path: '/data/k', value: 'v' },
      { op: 'add', path: '/metadata/labels/b', value: '2' },
      { op: 'replace', path: '/data/k', value: 'w' },
      { op: 'remove', path: '/list/0' },
      { op: 'add', path: '/list/-', value: 4 },
      { op: 'copy', from: '/data/k', path: '/data/k2' },
      { op: 'move', from: '/metadata/labels/a', path: '/metadata/labels/z' },
    ]);
    expect(out).toEqual({ metadata: { name: 'c', labels: { b: '2', z: '1' } }, data: { k: 'w', k2: 'w' }, list: [2, 3, 4] });
  });

  test('the input document is not modified', () => {
    applyJsonPatch(doc, [{ op: 'replace', path: '/data/k', value: 'changed' }]);
    expect(doc.data.k).toBe('v');
  });

  test('a failed test is 422 Invalid, and nothing applies', () => {
    const status = statusOf(() =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/data/k', value: 'w' },
        { op: 'test', path: '/data/k', value: 'nope' },
      ]),
    );
    expect(status).toMatchObject({
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    });
    expect(doc.data.k).toBe('v');
  });

  test('a path that does not exist is 422 too', () => {
    expect(statusOf(() => applyJsonPatch(doc, [{ op: 'remove', path: '/data/missing' }])).code).toBe(422);
    expect(statusOf(() => applyJsonPatch(doc, [{ op: 'add', path: '/nope/deeper', value: 1 }])).code).toBe(422);
    expect(statusOf(() => applyJsonPatch(doc, [{ op: 'replace', path: '/list/9', value: 1 }])).code).toBe(422);
  });

  test('an operation kube-apiserver decodes but cannot apply is 422', () => {
    expect(statusOf(() => applyJsonPatch(doc, [{ path: '/a' }])).code).toBe(422);
    expect(statusOf(() => applyJsonPatch(doc, [{ op: 'frobnicate', path: '/a' }])).code).toBe(422);
    expect(statusOf(() => applyJsonPatch(doc, [{ op: 'add', path: 'no-slash', value: 1 }])).code).toBe(422);
  });

  test('a body that is not a JSON list of objects is 400', () => {
    expect(statusOf(() => applyJsonPatch(doc, { op: 'add' }))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    });
    expect(statusOf(() => applyJsonPatch(doc, ['add'])).message).toBe('json: cannot unmarshal string into Go value of type jsonpatch.Operation');
  });

  test('a null patch is an empty patch', () => {
    expect(applyJsonPatch(doc, null)).toEqual(doc);
  });

  test('more than 10000 operations is 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/data/k', value: 'v' }));
    expect(statusOf(() => applyJsonPatch(doc, ops))).toMatchObject({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    });
  });

  test('"__proto__" paths do not reach Object.prototype', () => {
    expect(statusOf(() => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: 'yes' }])).code).toBe(422);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('copies that double a value until they pass 3 MiB in all are 422 within 1 s, and nothing applies', () => {
    const copies = Array.from({ length: 24 }, (_, i) => ({ op: 'copy', from: '/metadata/annotations', path: `/metadata/annotations/x${i}` }));
    const started = Date.now();
    const status = statusOf(() => applyJsonPatch(doc, [{ op: 'add', path: '/metadata/annotations', value: { a: 'x'.repeat(1024) } }, ...copies]));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(status).toMatchObject({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
    expect(doc.metadata).not.toHaveProperty('annotations');
  });

  test('copies up to the limit in all apply', () => {
    const big = 'x'.repeat(MAX_JSON_PATCH_COPY_BYTES / 4 - 2);
    const copy = (to: string): object => ({ op: 'copy', from: '/data/big', path: `/data/${to}` });
    const out = applyJsonPatch({ data: { big } }, [copy('a'), copy('b'), copy('c'), copy('d')]) as { data: Record<string, string> };
    expect(out.data.d).toBe(big);
    expect(
      statusOf(() => applyJsonPatch({ data: { big } }, [copy('a'), copy('b'), copy('c'), copy('d'), { op: 'copy', from: '/data/big', path: '/data/e' }])).code,
    ).toBe(422);
  });

  test('a copied map is serialised once (its size counted from the JSON it is copied from), and is a copy', () => {
    const map = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 'v'.repeat(100)]));
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const out = applyJsonPatch({ data: map }, [{ op: 'copy', from: '/data', path: '/copied' }]) as { data: object; copied: object };
      expect(stringify.mock.results.filter((r) => typeof r.value === 'string' && r.value.length > 100_000)).toHaveLength(1);
      expect(out.copied).toEqual(out.data);
      expect(out.copied).not.toBe(out.data);
    } finally {
      stringify.mockRestore();
    }
  });
});

describe('what json-patch v4 cannot locate is 422, as under kube-apiserver', () => {
  test.each([
    [{ op: 'add', path: '', value: { a: 'b' } }],
    [{ op: 'replace', path: '', value: 'x' }],
    [{ op: 'replace', path: '', value: null }],
    [{ op: 'remove', path: '' }],
    [{ op: 'move', from: '', path: '/metadata' }],
    [{ op: 'copy', from: '', path: '/metadata' }],
    [{ op: 'move', from: '/metadata', path: '/metadata/labels/x' }],
  ])('%j', (op) => {
    expect(statusOf(() => applyJsonPatch(doc, [op])).code).toBe(422);
  });

  test('a test of the whole document still applies', () => {
    expect(applyJsonPatch(doc, [{ op: 'test', path: '', value: doc }])).toEqual(doc);
  });

  test('a replace of the whole document by an object or array replaces it (Patch.replace), and later operations apply to it', () => {
    expect(
      applyJsonPatch(doc, [
        { op: 'replace', path: '', value: { a: 'b' } },
        { op: 'add', path: '/c', value: 'd' },
      ]),
    ).toEqual({ a: 'b', c: 'd' });
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '', value: [1] }])).toEqual([1]);
  });
});

describe('in slices (issue 25)', () => {
  test('yields between operations and gives what the whole run gives; a move or copy from nowhere is still 422', async () => {
    const patch = Array.from({ length: 300 }, (_, i) => ({ op: 'copy', from: '/data/k', path: `/data/k${i}` }));
    let slices = 0;
    const sliced = await applyJsonPatchInSlices(doc, patch, async () => void slices++, new WeakSet());
    expect(slices).toBe(300);
    expect(sliced).toEqual(applyJsonPatch(doc, patch));
    for (const op of ['copy', 'move']) {
      await expect(applyJsonPatchInSlices(doc, [{ op, from: '/data/missing', path: '/data/x' }], async () => {}, new WeakSet())).rejects.toMatchObject({
        code: 422,
      });
      expect(statusOf(() => applyJsonPatch(doc, [{ op, from: '/metadata/labels/a/deeper', path: '/data/x' }])).code).toBe(422);
    }
  });

  test('10,000 copies of a small value into a large document take time linear in the copies, not in the document', () => {
    const large = { data: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 'v'.repeat(1000)])) };
    const patch = Array.from({ length: 10_000 }, (_, i) => ({ op: 'copy', from: '/data/k0', path: `/data/k${i % 1000}` }));
    const started = Date.now();
    expect(statusOf(() => applyJsonPatch(large, patch)).code).toBe(422);
    // 3 MiB of copies of 1 KB are about 3,000 operations; cloning the 1 MB document for each took minutes
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('json-patch v4 readings', () => {
  test('a test without a value passes on a member holding null, as on a missing one, and fails on any other', () => {
    expect(applyJsonPatch({ a: null, b: 1 }, [{ op: 'test', path: '/a' } as never, { op: 'replace', path: '/b', value: 2 }])).toEqual({ a: null, b: 2 });
    expect(applyJsonPatch({ b: 1 }, [{ op: 'test', path: '/missing' } as never])).toEqual({ b: 1 });
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a' } as never])).toThrow();
  });
});

describe("as json-patch v4's Patch.Apply writes its result", () => {
  const pod = {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name: 'p', labels: { b: '1', a: '2' } },
    spec: { containers: [{ name: 'n', image: 'i' }], volumes: [{ name: 'v', emptyDir: {} }] },
  };

  test('containers on the paths json-patch walks are Go maps, sorted; values as the patch wrote them; a copy as its source was written', async () => {
    const decoded = new WeakSet<object>();
    const out = await applyJsonPatchInSlices(
      pod,
      [
        { op: 'add', path: '/spec/containers/0/ports', value: [{ name: 'p', containerPort: '80' }] },
        { op: 'copy', from: '/spec/containers/0', path: '/spec/copied' },
        { op: 'test', path: '/metadata/labels', value: { a: '2', b: '1' } },
      ],
      async () => {},
      decoded,
    );
    expect(v4PatchedJson(out, decoded)).toBe(
      '{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"2","b":"1"},"name":"p"},"spec":{' +
        '"containers":[{"image":"i","name":"n","ports":[{"name":"p","containerPort":"80"}]}],' +
        '"copied":{"image":"i","name":"n","ports":[{"name":"p","containerPort":"80"}]},"volumes":[{"name":"v","emptyDir":{}}]}}',
    );
  });

  test('the document never shares the patch values', () => {
    const value = { a: 1 };
    const out = applyJsonPatch(pod, [{ op: 'add', path: '/spec/x', value }]) as { spec: { x: unknown } };
    expect(out.spec.x).toEqual(value);
    expect(out.spec.x).not.toBe(value);
  });
});
