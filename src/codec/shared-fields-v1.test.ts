import { sharedFieldsV1 } from './shared-fields-v1';

const raw = (tree: unknown): Buffer => Buffer.from(JSON.stringify(tree));

describe('sharedFieldsV1', () => {
  it('gives equal bytes one frozen tree, in the bytes key order, and other bytes their own', () => {
    const owned = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:data': { 'f:é': {} } };
    const a = sharedFieldsV1(raw(owned));
    expect(sharedFieldsV1(raw(owned))).toBe(a);
    expect(a).toEqual(owned);
    expect(JSON.stringify(a)).toBe(JSON.stringify(owned));
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen((a as { 'f:metadata': { 'f:labels': object } })['f:metadata']['f:labels'])).toBe(true);
    expect(() => {
      (a as Record<string, unknown>)['f:spec'] = {};
    }).toThrow(TypeError);
    const other = sharedFieldsV1(raw({ 'f:data': { 'f:é': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } }));
    expect(other).not.toBe(a);
  });

  it('shares the equal subtrees of trees that differ, down to one empty object at every leaf', () => {
    // Two pods of one template: only their token volumes' names differ.
    const pod = (token: string) => ({
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
        'f:volumes': { '.': {}, [`k:{"name":"${token}"}`]: { '.': {}, 'f:name': {}, 'f:projected': { '.': {}, 'f:sources': {} } } },
      },
    });
    const a = sharedFieldsV1(raw(pod('kube-api-access-abcde'))) as any;
    const b = sharedFieldsV1(raw(pod('kube-api-access-fghij'))) as any;
    expect(a).toEqual(pod('kube-api-access-abcde'));
    expect(b).toEqual(pod('kube-api-access-fghij'));
    expect(JSON.stringify(b)).toBe(JSON.stringify(pod('kube-api-access-fghij')));
    expect(b).not.toBe(a);
    expect(b['f:metadata']).toBe(a['f:metadata']);
    expect(b['f:spec']['f:containers']).toBe(a['f:spec']['f:containers']);
    expect(b['f:spec']['f:volumes']).not.toBe(a['f:spec']['f:volumes']);
    expect(b['f:spec']['f:volumes']['k:{"name":"kube-api-access-fghij"}']).toBe(a['f:spec']['f:volumes']['k:{"name":"kube-api-access-abcde"}']);
    expect(b['f:metadata']['f:labels']['f:app']).toBe(a['f:spec']['f:containers']['k:{"name":"web"}']['f:image']);
    expect(Object.isFrozen(b)).toBe(true);
    expect(Object.isFrozen(b['f:spec']['f:volumes'])).toBe(true);
  });

  it('reads keys with escapes, and subtrees too large to remember, as JSON.parse does', () => {
    const large = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f:field-${i}`, { '.': {}, 'f:x': {} }]));
    const tree = { 'f:data': { 'f:a\\"b': {}, 'f:é\n': {} }, 'f:large': large, 'f:list': [1, 'two', null, true, { 'f:y': {} }] };
    const text = JSON.stringify(tree, null, 1);
    const read = sharedFieldsV1(Buffer.from(text)) as any;
    expect(read).toEqual(JSON.parse(text));
    expect(JSON.stringify(read)).toBe(JSON.stringify(tree));
    // The large subtree is built anew for each tree (these two differ in one key), its small parts shared.
    const compact = sharedFieldsV1(raw(tree)) as any;
    const again = sharedFieldsV1(raw({ ...tree, 'f:other': {} })) as any;
    expect(again['f:large']).not.toBe(compact['f:large']);
    expect(again['f:large']['f:field-7']).toBe(compact['f:large']['f:field-7']);
  });

  it('refuses bytes that are no JSON as JSON.parse does', () => {
    expect(() => sharedFieldsV1(Buffer.from('{"f:a":{}'))).toThrow(SyntaxError);
  });

  it('remembers a bounded number of trees, the recently decoded kept', () => {
    const kept = sharedFieldsV1(raw({ 'f:kept': {} }));
    const first = sharedFieldsV1(raw({ 'f:unique-0': {} }));
    for (let i = 1; i < 40_000; i++) {
      sharedFieldsV1(raw({ [`f:unique-${i}`]: {} }));
      if (i % 500 === 0) expect(sharedFieldsV1(raw({ 'f:kept': {} }))).toBe(kept);
    }
    const again = sharedFieldsV1(raw({ 'f:unique-0': {} }));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
