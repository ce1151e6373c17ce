import type { KubeObject } from '../api/types';
import { customResourceColumns, type AdditionalPrinterColumn } from './custom-columns';
import { AGE_COLUMN, NAME_COLUMN, toTable } from './table';

const NOW = Date.parse('2025-06-01T12:00:00Z');

const widget: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default', creationTimestamp: '2025-06-01T11:55:00Z' },
  spec: { replicas: 3, ratio: 1.5, enabled: true, size: 'large', selector: { app: 'w', tier: '<b>' }, ports: [80, 443] },
  status: {
    conditions: [
      { type: 'Ready', status: 'True', lastTransitionTime: '2025-06-01T10:00:00Z' },
      { type: 'Synced', status: 'False' },
    ],
    nothing: null,
  },
};

beforeAll(() => {
  jest.useFakeTimers({ now: NOW });
});

afterAll(() => {
  jest.useRealTimers();
});

function cellOf(column: Omit<AdditionalPrinterColumn, 'name'>, obj: KubeObject = widget): unknown {
  const [, printed] = customResourceColumns([{ name: 'C', ...column }]);
  return printed.cell(obj);
}

describe('column definitions', () => {
  test('Name first, then each column with its format and priority', () => {
    const columns = customResourceColumns([
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', format: 'int32', priority: 1 },
      { name: 'Size', type: 'string', jsonPath: '.spec.size', description: 'How big' },
    ]);
    expect(columns[0]).toBe(NAME_COLUMN);
    expect(columns.slice(1).map(({ cell: _cell, ...definition }) => definition)).toEqual([
      {
        name: 'Replicas',
        type: 'integer',
        format: 'int32',
        priority: 1,
        description: 'Custom resource definition column (in JSONPath format): .spec.replicas',
      },
      { name: 'Size', type: 'string', format: undefined, priority: undefined, description: 'How big' },
    ]);
  });

  test('a version without columns is served Name and Age', () => {
    const [name, ageColumn] = customResourceColumns([]);
    expect(name).toBe(NAME_COLUMN);
    expect(ageColumn).toMatchObject({ name: 'Age', type: 'date', description: AGE_COLUMN.description });
    expect(ageColumn.cell(widget)).toBe('5m');
  });

  test('a column whose path does not parse ends the list, keeping the columns before it', () => {
    const columns = customResourceColumns([
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Broken', type: 'string', jsonPath: '.spec.ports[' },
      { name: 'Size', type: 'string', jsonPath: '.spec.size' },
    ]);
    expect(columns.map((c) => c.name)).toEqual(['Name', 'Replicas']);
  });

  test('the Table carries the definitions and cells', () => {
    const printerColumns = customResourceColumns([
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
    ]);
    const table = toTable(
      { group: 'example.com', version: 'v1', kind: 'Widget', listKind: 'WidgetList', printerColumns },
      [widget],
      { resourceVersion: '7' },
      'None',
      'meta.k8s.io/v1',
    );
    expect(table.columnDefinitions?.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Replicas', 'integer', '', 1],
    ]);
    expect(table.rows).toEqual([{ cells: ['w1', 'True', 3] }]);
  });
});

describe('cells', () => {
  test('the first result of the path only', () => {
    expect(cellOf({ type: 'integer', jsonPath: '.spec.ports[*]' })).toBe(80);
    expect(cellOf({ type: 'string', jsonPath: '.status.conditions[*].type' })).toBe('Ready');
  });

  test('missing values and failed evaluations are null (kubectl prints <none>)', () => {
    expect(cellOf({ type: 'string', jsonPath: '.status.phase' })).toBeNull();
    expect(cellOf({ type: 'integer', jsonPath: '.spec.ports[5]' })).toBeNull();
    expect(cellOf({ type: 'string', jsonPath: '.status.conditions[?(@.type=="Gone")].status' })).toBeNull();
    expect(cellOf({ type: 'string', jsonPath: '.status.conditions[?(@.type==1)].status' })).toBeNull();
  });

  test('integer: int64 values, floats truncated, anything else null', () => {
    expect(cellOf({ type: 'integer', jsonPath: '.spec.replicas' })).toBe(3);
    expect(cellOf({ type: 'integer', jsonPath: '.spec.ratio' })).toBe(1);
    expect(cellOf({ type: 'integer', jsonPath: '.spec.size' })).toBeNull();
    expect(cellOf({ type: 'integer', jsonPath: '.spec.enabled' })).toBeNull();
    expect(cellOf({ type: 'integer', jsonPath: '.status.nothing' })).toBeNull();
  });

  test('number: integers and floats, anything else null', () => {
    expect(cellOf({ type: 'number', jsonPath: '.spec.ratio' })).toBe(1.5);
    expect(cellOf({ type: 'number', jsonPath: '.spec.replicas' })).toBe(3);
    expect(cellOf({ type: 'number', jsonPath: '.spec.size' })).toBeNull();
  });

  test('boolean: booleans only', () => {
    expect(cellOf({ type: 'boolean', jsonPath: '.spec.enabled' })).toBe(true);
    expect(cellOf({ type: 'boolean', jsonPath: '.spec.size' })).toBeNull();
  });

  test('string: any value printed as client-go prints it', () => {
    expect(cellOf({ type: 'string', jsonPath: '.spec.size' })).toBe('large');
    expect(cellOf({ type: 'string', jsonPath: '.spec.replicas' })).toBe('3');
    expect(cellOf({ type: 'string', jsonPath: '.spec.ratio' })).toBe('1.5');
    expect(cellOf({ type: 'string', jsonPath: '.spec.enabled' })).toBe('true');
    expect(cellOf({ type: 'string', jsonPath: '.spec.selector' })).toBe('{"app":"w","tier":"\\u003cb\\u003e"}');
    expect(cellOf({ type: 'string', jsonPath: '.spec.ports' })).toBe('[80,443]');
    expect(cellOf({ type: 'string', jsonPath: '.status.nothing' })).toBe('<no value>');
  });

  test('date: the age, computed by the server', () => {
    expect(cellOf({ type: 'date', jsonPath: '.metadata.creationTimestamp' })).toBe('5m');
    expect(cellOf({ type: 'date', jsonPath: '.status.conditions[0].lastTransitionTime' })).toBe('120m');
    expect(cellOf({ type: 'date', jsonPath: '.status.conditions[1].status' })).toBe('<invalid>');
    expect(cellOf({ type: 'date', jsonPath: '.spec.replicas' })).toBeNull();
    expect(cellOf({ type: 'date', jsonPath: '.status.nothing' })).toBeNull();
  });

  test.each([
    ['2025-06-01T11:59:30Z', '30s'],
    ['2025-06-01T11:59:30.999Z', '29s'],
    ['2025-06-01T13:59:30+02:00', '30s'],
    ['2025-06-01T06:29:30-05:30', '30s'],
    ['2025-05-31T12:00:00Z', '24h'],
    ['', '<unknown>'],
    ['null', '<unknown>'],
    ['0001-01-01T00:00:00Z', '<unknown>'],
    ['2025-06-01', '<invalid>'],
    ['2025-06-01 12:00:00Z', '<invalid>'],
    ['2025-02-30T00:00:00Z', '<invalid>'],
    ['2025-06-01T24:00:00Z', '<invalid>'],
    ['2025-06-01T12:00:00', '<invalid>'],
  ])('date %p → %p', (timestamp, cell) => {
    expect(cellOf({ type: 'date', jsonPath: '.status.at' }, { ...widget, status: { at: timestamp } })).toBe(cell);
  });
});
