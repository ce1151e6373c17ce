import { jsonInSlices } from './json-in-slices';
import { jsonText } from './json';

const text = (body: Buffer | string): string => (typeof body === 'string' ? body : body.toString('utf8'));

describe('jsonInSlices', () => {
  const containers = Array.from({ length: 1000 }, (_, i) => ({ name: `c${i}`, image: 'x', env: i % 2 ? undefined : [{ name: 'é<&>', value: '\n"' }] }));
  const fields = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k:{"name":"c${i}"}`, { '.': {}, 'f:image': {} }]));
  const values: [string, unknown][] = [
    ['a small object', { kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } }],
    ['a scalar', 'x'],
    ['an empty object', {}],
    [
      'a Deployment with a large list and a large map, undefined fields and list items, a Date',
      {
        kind: 'Deployment',
        gone: undefined,
        metadata: { name: 'd', managedFields: [{ manager: 'm', time: new Date(0), fieldsV1: { 'f:spec': { 'f:containers': fields } } }] },
        spec: { template: { spec: { containers, holes: [undefined, 1, null] } }, empty: [], none: {} },
      },
    ],
    ['a large list at the root', containers],
    ['a large map whose values are all undefined', Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, undefined]))],
    ['more containers than one go looks at, none of them large', Array.from({ length: 30 }, () => Array.from({ length: 100 }, (_, i) => ({ i, of: [i] })))],
  ];

  test.each(values)('%s: the bytes of jsonText, compact and pretty', async (_, value) => {
    for (const pretty of [false, true]) expect(text(await jsonInSlices(value, pretty, async () => {}))).toBe(jsonText(value, pretty));
  });

  test('a large object yields between its entries; a small one is encoded at once', async () => {
    let slices = 0;
    const count = async (): Promise<void> => {
      slices++;
    };
    await jsonInSlices({ spec: { containers } }, false, count);
    expect(slices).toBeGreaterThanOrEqual(1000 / 64);
    slices = 0;
    expect(typeof (await jsonInSlices({ spec: { containers: containers.slice(0, 10) } }, false, count))).toBe('string');
    expect(slices).toBe(0);
  });

  test('a value with more containers than one go looks at is examined in slices, even with no large list', async () => {
    let slices = 0;
    const wide = Array.from({ length: 30 }, () => Array.from({ length: 100 }, (_, i) => ({ i })));
    await jsonInSlices(wide, false, async () => {
      slices++;
    });
    expect(slices).toBeGreaterThan(0);
  });
});
