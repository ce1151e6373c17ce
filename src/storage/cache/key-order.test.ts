import type { KubeObject } from '../../api/types';
import { KeyOrder } from './key-order';

const obj = (name: string, v = '1'): KubeObject => ({ metadata: { name, resourceVersion: v } }) as KubeObject;

function slice(order: KeyOrder, current: Map<string, KubeObject>, prefix: string): [string, string | undefined][] {
  const { keys, objects, from, to } = order.range(current, prefix);
  return keys.slice(from, to).map((key, i) => [key, objects[from + i].metadata.resourceVersion]);
}

describe('KeyOrder', () => {
  const current = new Map<string, KubeObject>([
    ['/r/b/2', obj('2')],
    ['/r/a/1', obj('1')],
    ['/r/b/1', obj('1')],
    ['/r/c/1', obj('1')],
  ]);

  test('the keys under a prefix and their objects, in key order', () => {
    const order = new KeyOrder();
    expect(slice(order, current, '/r/b/')).toEqual([
      ['/r/b/1', '1'],
      ['/r/b/2', '1'],
    ]);
    expect(slice(order, current, '/r/').map(([k]) => k)).toEqual(['/r/a/1', '/r/b/1', '/r/b/2', '/r/c/1']);
    expect(slice(order, current, '/r/d/')).toEqual([]);
  });

  test('a replaced object is seen in its place; a key that came or went after reset', () => {
    const order = new KeyOrder();
    const map = new Map(current);
    slice(order, map, '/r/');
    map.set('/r/b/2', obj('2', '9'));
    order.replaced('/r/b/2', map.get('/r/b/2')!);
    expect(slice(order, map, '/r/b/')).toEqual([
      ['/r/b/1', '1'],
      ['/r/b/2', '9'],
    ]);
    map.set('/r/b/0', obj('0'));
    map.delete('/r/b/1');
    order.reset();
    expect(slice(order, map, '/r/b/').map(([k]) => k)).toEqual(['/r/b/0', '/r/b/2']);
  });

  test('replacing a key the order does not hold makes the next read rebuild it', () => {
    const order = new KeyOrder();
    const map = new Map(current);
    slice(order, map, '/r/');
    map.set('/r/z/1', obj('1', '5'));
    order.replaced('/r/z/1', map.get('/r/z/1')!);
    expect(slice(order, map, '/r/z/')).toEqual([['/r/z/1', '5']]);
  });
});
