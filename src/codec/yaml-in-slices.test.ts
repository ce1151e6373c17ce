import { encodeYaml } from './yaml';
import { yamlInSlices } from './yaml-in-slices';

describe('yamlInSlices', () => {
  const containers = Array.from({ length: 1000 }, (_, i) => ({
    name: `c${i}`,
    image: 'x',
    args: i % 3 ? ['- x', 'y', ' leading space\nand a second line', 'true', '1.5'] : [],
    env: i % 2 ? [{ name: 'é<&>', value: 'a\nb\n' }] : [{}],
    ports: [[80, 443], []],
  }));
  const fields = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k:{"name":"c${i}"}`, { '.': {}, 'f:image': {}, y: null }]));
  const values: [string, unknown][] = [
    ['a small object', { kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } }],
    ['a scalar', 'x'],
    ['an empty object', {}],
    [
      'a Deployment with a large list and a large map (its managed fields), a Date',
      {
        kind: 'Deployment',
        metadata: { name: 'd', managedFields: [{ manager: 'm', time: new Date(0), fieldsV1: { 'f:spec': { 'f:containers': fields } } }] },
        spec: { template: { spec: { containers } }, empty: [], none: {} },
      },
    ],
    ['a large list at the root', containers],
    [
      'large lists under keys of list items, and in lists',
      [{ a: containers.slice(0, 300), 'b c': Array.from({ length: 300 }, (_, i) => [i, `${i}`]) }, [containers]],
    ],
    [
      'a large list of large lists, and of scalars',
      { lists: Array.from({ length: 300 }, () => Array.from({ length: 300 }, (_, i) => i)), y: Array.from({ length: 300 }, (_, i) => (i % 2 ? 'no' : null)) },
    ],
    [
      'a key named __proto__ beside a large list (an own key, as JSON.parse makes it)',
      { big: Array.from({ length: 300 }, (_, i) => i), x: JSON.parse('{"__proto__":"v","o":{"__proto__":{"a":1}}}') as unknown },
    ],
    [
      'more containers than one go looks at, none of them large',
      { items: Array.from({ length: 30 }, () => Array.from({ length: 100 }, (_, i) => ({ i, of: [i] }))) },
    ],
  ];

  test.each(values)('%s: the bytes of encodeYaml', async (_, value) => {
    expect((await yamlInSlices(value, async () => {})).toString()).toBe(encodeYaml(value).toString());
  });

  test('a large value yields between its pieces', async () => {
    let slices = 0;
    await yamlInSlices({ spec: { containers } }, async () => void slices++);
    expect(slices).toBeGreaterThan(1000 / 64);
  });
});
