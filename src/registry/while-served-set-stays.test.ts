import { whileServedSetStays } from './while-served-set-stays';

test('a derived value is built once, and again only after the served set changed', () => {
  const registry = { generation: 1 };
  let builds = 0;
  const value = whileServedSetStays(registry, () => ++builds);
  expect([value(), value()]).toEqual([1, 1]);
  registry.generation++;
  expect([value(), value()]).toEqual([2, 2]);
});
