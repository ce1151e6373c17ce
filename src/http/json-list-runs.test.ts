import { randomUUID } from 'node:crypto';
import { jsonItemPieces } from './json-list-runs';

function cm(name: string, uid: string = randomUUID(), v = 'x'): Record<string, unknown> {
  return { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'ns', uid }, data: { v, text: 'é "quoted" \u2028' } };
}

const many = (n: number, prefix = 'cm') => Array.from({ length: n }, (_, i) => cm(`${prefix}-${i}`));

const pieces = (items: unknown[]): Buffer[] => [...jsonItemPieces(items)];
const text = (items: unknown[]): string => Buffer.concat(pieces(items)).toString();
const expected = (items: unknown[]): string => JSON.stringify(items).slice(1, -1);

describe('jsonItemPieces', () => {
  test.each([0, 1, 2, 63, 1000])('%d items: the pieces concatenate to the items JSON.stringify writes, comma-separated', (n) => {
    const items = many(n);
    expect(text(items)).toBe(expected(items));
    // Again, from the kept runs.
    expect(text(items)).toBe(expected(items));
  });

  test('items that are not objects, and objects without a uid, are written as JSON.stringify writes them', () => {
    const items = [1, 'two', null, { metadata: { name: 'no-uid' } }, ...many(300), [3], { metadata: { uid: 7 } }];
    expect(text(items)).toBe(expected(items));
    expect(text(items)).toBe(expected(items));
  });

  test('a list of the same objects again is written from the same kept bytes', () => {
    const items = many(2000);
    const first = pieces(items);
    const second = pieces(items);
    expect(second.length).toBe(first.length);
    // The head (before the first boundary) is never kept; every other run is.
    const kept = second.slice(1).filter((piece, i) => piece === first[i + 1]).length;
    expect(kept).toBe(second.length - 1);
  });

  test('a changed, a created and a deleted object each change only the run they fall in, and the bytes stay exact', () => {
    const items = many(3000);
    const before = new Set(pieces(items));
    const changed = [...items];
    changed[1500] = cm('cm-1500', (items[1500].metadata as { uid: string }).uid, 'changed');
    changed.splice(2200, 0, cm('cm-new'));
    changed.splice(700, 1);
    const after = pieces(changed);
    expect(Buffer.concat(after).toString()).toBe(expected(changed));
    // Three rebuilt runs, the one the next run may absorb when a boundary is deleted or created, and the head.
    expect(after.filter((piece) => !before.has(piece)).length).toBeLessThanOrEqual(7);
  });

  test('lists that share objects (one namespace and all of them, a filtered list, one starting mid-run) stay exact when alternated', () => {
    const a = many(1500, 'a');
    const b = many(1500, 'b');
    const all = [...a, ...b];
    const filtered = all.filter((_, i) => i % 3 !== 0);
    const lists = [all, a, b, filtered, all.slice(777), a.slice(0, 1234)];
    for (let round = 0; round < 3; round++) for (const list of lists) expect(text(list)).toBe(expected(list));
  });

  test('a run holds at most 256 items, whatever the boundaries', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ metadata: { name: `x-${i}` } }));
    expect(pieces(items).length).toBe(4);
    expect(text(items)).toBe(expected(items));
  });
});
