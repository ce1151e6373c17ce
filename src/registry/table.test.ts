import type { KubeObject } from '../api/types';
import { configmaps } from '../resources/configmaps';
import { defineResource } from './resource-definition';
import { strategy } from './strategy';
import { age, humanDuration, toTable } from './table';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

describe('humanDuration (duration.HumanDuration)', () => {
  test.each([
    [0, '0s'],
    [119 * SECOND + 999, '119s'],
    [120 * SECOND, '2m'],
    [9 * MINUTE + 59 * SECOND, '9m59s'],
    [10 * MINUTE, '10m'],
    [179 * MINUTE + 59 * SECOND, '179m'],
    [180 * MINUTE, '3h'],
    [7 * HOUR + 59 * MINUTE, '7h59m'],
    [8 * HOUR, '8h'],
    [47 * HOUR + 59 * MINUTE, '47h'],
    [48 * HOUR, '2d'],
    [7 * DAY + 23 * HOUR, '7d23h'],
    [8 * DAY, '8d'],
    [729 * DAY + 23 * HOUR, '729d'],
    [2 * YEAR, '2y'],
    [2 * YEAR + DAY, '2y1d'],
    [7 * YEAR + 364 * DAY, '7y364d'],
    [8 * YEAR, '8y'],
    [80 * YEAR, '80y'],
  ])('%d ms -> %s', (ms, text) => expect(humanDuration(ms)).toBe(text));

  test('up to two seconds in the future reads as 0s (Go truncates toward zero)', () => {
    expect(humanDuration(-1 * SECOND)).toBe('0s');
    expect(humanDuration(-1999)).toBe('0s');
    expect(humanDuration(-2 * SECOND)).toBe('<invalid>');
  });
});

describe('age', () => {
  afterEach(() => jest.useRealTimers());

  test('counts from creationTimestamp; none is <unknown>', () => {
    jest.useFakeTimers({ now: Date.parse('2024-01-01T03:00:00Z') });
    expect(age('2024-01-01T00:00:00Z')).toBe('3h');
    expect(age(undefined)).toBe('<unknown>');
    expect(age(null)).toBe('<unknown>');
  });
});

describe('toTable', () => {
  const widgets = defineResource({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, strategy: strategy({}) });
  const obj: KubeObject = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w1', namespace: 'ns', creationTimestamp: '2024-01-01T00:00:00Z' },
  };

  test('kinds without printer columns get the default Name and Created At', () => {
    const table = toTable(widgets, [obj], { resourceVersion: '7' }, 'None', 'meta.k8s.io/v1');
    expect(table.kind).toBe('Table');
    expect(table.apiVersion).toBe('meta.k8s.io/v1');
    expect(table.metadata).toEqual({ resourceVersion: '7' });
    expect(table.columnDefinitions!.map(({ description: _d, ...c }) => c)).toEqual([
      { name: 'Name', type: 'string', format: 'name', priority: 0 },
      { name: 'Created At', type: 'date', format: '', priority: 0 },
    ]);
    expect(table.columnDefinitions![0].description).toMatch(/^Name must be unique within a namespace\./);
    expect(table.columnDefinitions![1].description).toMatch(/^CreationTimestamp is a timestamp representing the server time/);
    expect(table.rows).toEqual([{ cells: ['w1', '2024-01-01T00:00:00Z'] }]);
  });

  test('includeObject=Metadata puts PartialObjectMetadata in each row, Object the whole object', () => {
    const meta = toTable(widgets, [obj], {}, 'Metadata', 'meta.k8s.io/v1beta1');
    expect(meta.rows[0].object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: obj.metadata });
    expect(toTable(widgets, [obj], {}, 'Object', 'meta.k8s.io/v1').rows[0].object).toBe(obj);
  });

  test('a kind with printer columns uses them (ConfigMap: Name, Data, Age)', () => {
    expect(toTable(configmaps, [], {}, 'None', 'meta.k8s.io/v1').columnDefinitions!.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
  });
});
