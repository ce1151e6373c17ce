import type { KubeObject } from '../../api/types';
import { TypeTally } from './type-tally';

const obj = (apiVersion: string, kind = 'Thing'): KubeObject => ({ apiVersion, kind, metadata: { name: 'x' } }) as KubeObject;

describe('TypeTally', () => {
  test('one apiVersion and kind while every object carries them, none while two are held', () => {
    const tally = new TypeTally();
    expect(tally.only()).toBeUndefined();
    const v1 = obj('g/v1');
    const v2 = obj('g/v2');
    tally.reset([v1, obj('g/v1')]);
    expect(tally.only()).toEqual({ apiVersion: 'g/v1', kind: 'Thing' });
    tally.add(v2);
    expect(tally.only()).toBeUndefined();
    tally.remove(v2);
    expect(tally.only()).toEqual({ apiVersion: 'g/v1', kind: 'Thing' });
    tally.add(obj('g/v1', 'Other'));
    expect(tally.only()).toBeUndefined();
  });

  test('the last object of a pair removed leaves the other pair alone', () => {
    const tally = new TypeTally();
    const a = obj('g/v1');
    const b = obj('g/v2');
    tally.reset([a, b]);
    tally.remove(a);
    expect(tally.only()).toEqual({ apiVersion: 'g/v2', kind: 'Thing' });
    tally.remove(b);
    expect(tally.only()).toBeUndefined();
  });
});
