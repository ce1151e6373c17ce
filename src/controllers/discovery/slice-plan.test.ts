import type { Endpoint, EndpointSlice } from '../../generated/types/discovery/v1';
import { planSlices } from './slice-plan';

const ep = (i: number, ready = true): Endpoint => ({ addresses: [`10.0.0.${i}`], conditions: { ready }, targetRef: { kind: 'Pod', uid: `uid-${i}` } });
const slice = (name: string, endpoints: Endpoint[]): EndpointSlice => ({ metadata: { name }, addressType: 'IPv4', endpoints });
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

test('new endpoints are cut into slices of at most max', () => {
  const plan = planSlices(
    [],
    range(0, 250).map((i) => ep(i)),
  );
  expect(plan.create.map((c) => c.length)).toEqual([100, 100, 50]);
  expect(plan.update).toEqual([]);
});

test('an unchanged slice is left alone; a changed endpoint is replaced in its own slice', () => {
  const a = slice('a', [ep(1), ep(2)]);
  const b = slice('b', [ep(3)]);
  const plan = planSlices([a, b], [ep(1), ep(2), ep(3, false)]);
  expect(plan.update).toEqual([{ slice: b, endpoints: [ep(3, false)] }]);
  expect(plan.create).toEqual([]);
  expect(plan.delete).toEqual([]);
});

test('a slice emptied is deleted unless new endpoints refill it; new ones go first to slices being written, then to the fullest with room', () => {
  const gone = slice('gone', [ep(1)]);
  const changed = slice('changed', [ep(2), ep(3)]);
  expect(planSlices([gone, changed], [ep(2)], 4)).toEqual({ update: [{ slice: changed, endpoints: [ep(2)] }], create: [], delete: [gone] });
  expect(planSlices([gone, changed], [ep(2), ep(20)], 4)).toEqual({
    update: [
      { slice: gone, endpoints: [ep(20)] },
      { slice: changed, endpoints: [ep(2)] },
    ],
    create: [],
    delete: [],
  });
  const small = slice('small', [ep(4)]);
  const full = slice(
    'full',
    range(10, 13).map((i) => ep(i)),
  );
  const plan = planSlices([small, full], [ep(4), ...range(10, 13).map((i) => ep(i)), ep(30), ep(31), ep(32)], 4);
  expect(plan.update).toEqual([
    { slice: full, endpoints: [...range(10, 13).map((i) => ep(i)), ep(30)] },
    { slice: small, endpoints: [ep(4), ep(31), ep(32)] },
  ]);
  expect(plan.create).toEqual([]);
});
