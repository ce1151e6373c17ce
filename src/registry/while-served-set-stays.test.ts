import { whileServedSetStays } from './while-served-set-stays';

test('a derived value is built once, and again only after the served set changed', () => {
  const registry = { generation: 1 };
  let builds = 0;
  const value = whileServedSetStays(registry, () => ++builds);
  expect([value(), value()]).toEqual([1, 1]);
  registry.generation++;
  expect([value(), value()]).toEqual([2, 2]);
});

test('a build that rejects is not kept: the next caller builds again', async () => {
  const registry = { generation: 1 };
  let builds = 0;
  const value = whileServedSetStays(registry, () => (++builds === 1 ? Promise.reject(new Error('first build failed')) : Promise.resolve(builds)));
  await expect(value()).rejects.toThrow('first build failed');
  await expect(value()).resolves.toBe(2);
  await expect(value()).resolves.toBe(2);
});
