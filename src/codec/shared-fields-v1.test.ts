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

  it('remembers a bounded number of trees, the recently decoded kept', () => {
    const kept = sharedFieldsV1(raw({ 'f:kept': {} }));
    const first = sharedFieldsV1(raw({ 'f:unique-0': {} }));
    for (let i = 1; i < 3000; i++) {
      sharedFieldsV1(raw({ [`f:unique-${i}`]: {} }));
      if (i % 500 === 0) expect(sharedFieldsV1(raw({ 'f:kept': {} }))).toBe(kept);
    }
    const again = sharedFieldsV1(raw({ 'f:unique-0': {} }));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
