import type { Taint, Toleration } from '../../generated/types/core/v1';
import { matchingTolerations, minTolerationMs, tolerates } from './taints';

const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const notReady: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };
const gpu: Taint = { key: 'gpu', value: 'a100', effect: 'NoSchedule' };

test('ToleratesTaint: effect, key, and value unless Exists; an empty key with Exists tolerates any key', () => {
  expect(tolerates({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }, unreachable)).toBe(true);
  expect(tolerates({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoSchedule' }, unreachable)).toBe(false);
  expect(tolerates({ operator: 'Exists' }, unreachable)).toBe(true);
  expect(tolerates({ key: 'gpu', value: 'a100' }, gpu)).toBe(true);
  expect(tolerates({ key: 'gpu', operator: 'Equal', value: 'h100' }, gpu)).toBe(false);
  expect(tolerates({ key: 'gpu', operator: 'Exists' }, gpu)).toBe(true);
});

test('the tolerations used and the least tolerationSeconds among them', () => {
  const forever: Toleration = { key: unreachable.key, operator: 'Exists', effect: 'NoExecute' };
  const brief: Toleration = { key: notReady.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 };
  expect(matchingTolerations([unreachable, notReady], [forever])).toEqual({ all: false, used: [] });
  expect(matchingTolerations([unreachable, notReady], [forever, brief])).toEqual({ all: true, used: [forever, brief] });
  expect(minTolerationMs([forever])).toBeNull();
  expect(minTolerationMs([forever, brief, { ...brief, tolerationSeconds: 300 }])).toBe(30_000);
  expect(minTolerationMs([{ ...brief, tolerationSeconds: -5 }])).toBe(0);
  expect(minTolerationMs([])).toBe(0);
});
