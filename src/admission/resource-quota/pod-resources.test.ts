import type { KubeObject } from '../../api/types';
import { resourceListJson } from './amounts';
import { podTotals } from './pod-resources';

const container = (name: string, cpu: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: 'x',
  resources: { requests: { cpu }, limits: { cpu } },
  ...extra,
});
const pod = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec });

test('containers add up; an init container counts when it needs more than they do', () => {
  const p = pod({ containers: [container('a', '200m'), container('b', '300m')], initContainers: [container('i', '800m')] });
  expect(resourceListJson(podTotals(p, 'requests'))).toEqual({ cpu: '800m' });
  const small = pod({ containers: [container('a', '200m'), container('b', '300m')], initContainers: [container('i', '100m')] });
  expect(resourceListJson(podTotals(small, 'requests'))).toEqual({ cpu: '500m' });
});

test('sidecars run beside the containers and beside the init containers after them', () => {
  const p = pod({
    containers: [container('a', '1')],
    initContainers: [container('side', '500m', { restartPolicy: 'Always' }), container('late', '1200m')],
  });
  // max(1 + 500m, 1200m + 500m)
  expect(resourceListJson(podTotals(p, 'requests'))).toEqual({ cpu: '1700m' });
});

test('overhead is added to requests, and to limits only where the pod has a limit', () => {
  const p = pod({ containers: [container('a', '1')], overhead: { cpu: '250m', memory: '64Mi' } });
  expect(resourceListJson(podTotals(p, 'requests'))).toEqual({ cpu: '1250m', memory: '64Mi' });
  expect(resourceListJson(podTotals(p, 'limits'))).toEqual({ cpu: '1250m' });
  expect(resourceListJson(podTotals(p, 'requests', false))).toEqual({ cpu: '1' });
});
