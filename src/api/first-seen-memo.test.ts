import { firstSeenMemo } from './first-seen-memo';

test('the first inputs are computed once, null answers included; inputs past the bound are computed each time', () => {
  const calls: string[] = [];
  const memo = firstSeenMemo(2, (key) => {
    calls.push(key);
    return key === 'none' ? null : key.length;
  });
  expect([memo('abc'), memo('none'), memo('abc'), memo('none')]).toEqual([3, null, 3, null]);
  expect([memo('late'), memo('late')]).toEqual([4, 4]);
  expect(calls).toEqual(['abc', 'none', 'late', 'late']);
});
