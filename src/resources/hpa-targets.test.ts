import { formatHpaTargets } from './hpa-targets';

const cpu = (utilization: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } });

test('a resource utilization without a reading is unknown', () => {
  expect(formatHpaTargets([cpu(80)], undefined)).toBe('cpu: <unknown>/80%');
  expect(formatHpaTargets([cpu(80)], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 12 } } }])).toBe('cpu: 12%/80%');
});

test('values, averages and the count beyond two', () => {
  const pods = { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '1k' } } };
  const object = { type: 'Object', object: { metric: { name: 'hits' }, target: { type: 'Value', value: '10' } } };
  const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } };
  expect(formatHpaTargets([pods, object], [{ type: 'Pods', pods: { current: { averageValue: '300' } } }])).toBe('300/1k, <unknown>/10');
  expect(formatHpaTargets([memory, pods, object, cpu(50)], [])).toBe('memory: <unknown>/500Mi, <unknown>/1k + 2 more...');
  expect(formatHpaTargets([], [])).toBe('<none>');
});
