import type { Pod } from '../../generated/types/core/v1';
import { rawResourceReplicas, resourceReplicas, type PodMetricsInfo } from './replica-calculator';
import { ScaleHistory } from './scale-rules';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const OPTS = { tolerance: 0.1, cpuInitializationPeriodMs: 300_000, initialReadinessDelayMs: 30_000 };
const iso = (ms: number) => new Date(ms).toISOString();

/** A running pod requesting `request` cpu, started long ago and ready since then (or not ready). */
function pod(name: string, request = '1', ready = true): Pod {
  return {
    metadata: { name, namespace: 'ns' },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: request } } }] },
    status: {
      phase: 'Running',
      startTime: iso(NOW - 3_600_000),
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: iso(NOW - 3_600_000 + (ready ? 10_000 : 0)) }],
    },
  };
}

const usage = (values: Record<string, number>): PodMetricsInfo =>
  new Map(Object.entries(values).map(([name, value]) => [name, { timestampMs: NOW - 1000, windowMs: 60_000, value }]));

describe('resourceReplicas (GetResourceReplicas)', () => {
  test('scales up by the utilization ratio over the ready pods', () => {
    const pods = [pod('a'), pod('b'), pod('c')];
    expect(resourceReplicas(3, 30, 'cpu', '', pods, usage({ a: 300, b: 500, c: 700 }), OPTS, NOW)).toEqual({
      replicas: 5,
      utilization: 50,
      rawUtilization: 500,
    });
  });

  test('an unready pod counts as idle when scaling up, which damps the proposal', () => {
    const pods = [pod('a', '1', false), pod('b'), pod('c')];
    expect(resourceReplicas(3, 30, 'cpu', '', pods, usage({ a: 100, b: 500, c: 700 }), OPTS, NOW)).toEqual({
      replicas: 4,
      utilization: 60,
      rawUtilization: 600,
    });
  });

  test('within the tolerance the current count stays', () => {
    const pods = [pod('a'), pod('b')];
    expect(resourceReplicas(2, 50, 'cpu', '', pods, usage({ a: 520, b: 530 }), OPTS, NOW).replicas).toBe(2);
  });

  test('a pod without a metric counts as using its whole request when scaling down', () => {
    const pods = [pod('a'), pod('b'), pod('c'), pod('d')];
    // Measured: 10% against 50% (ratio 0.2); with d at 100%: 32.5% → ratio 0.65 → ceil(0.65 × 4) = 3.
    expect(resourceReplicas(4, 50, 'cpu', '', pods, usage({ a: 100, b: 100, c: 100 }), OPTS, NOW)).toEqual({
      replicas: 3,
      utilization: 10,
      rawUtilization: 100,
    });
  });

  test("kube's errors: no pods, no metric for a ready pod, a container without a request", () => {
    expect(() => resourceReplicas(1, 50, 'cpu', '', [], usage({}), OPTS, NOW)).toThrow('no pods returned by selector while calculating replica count');
    expect(() => resourceReplicas(1, 50, 'cpu', '', [pod('a', '1', false)], usage({ a: 5 }), OPTS, NOW)).toThrow(
      'did not receive metrics for targeted pods (pods might be unready)',
    );
    const bare: Pod = { ...pod('a'), spec: { containers: [{ name: 'c' }] } };
    expect(() => resourceReplicas(1, 50, 'cpu', '', [bare], usage({ a: 5 }), OPTS, NOW)).toThrow('missing request for cpu in container c of Pod a');
  });

  test('an averageValue target divides the mean usage by the target', () => {
    const pods = [pod('a'), pod('b')];
    expect(rawResourceReplicas(2, 200, 'cpu', pods, usage({ a: 400, b: 400 }), OPTS, NOW)).toEqual({ replicas: 4, rawUtilization: 400 });
  });
});

describe('ScaleHistory', () => {
  test('without behaviors a scale-down waits out the stabilization window, and a scale-up is at most double (four at least)', () => {
    const history = new ScaleHistory(300_000);
    history.recordInitial('k', 4, NOW);
    expect(history.normalize('k', 4, 1, 1, 10, NOW + 1000)).toMatchObject({ replicas: 4, ableToScale: { reason: 'ScaleDownStabilized' } });
    expect(history.normalize('k', 4, 1, 1, 10, NOW + 301_000).replicas).toBe(1);
    expect(history.normalize('k', 1, 9, 1, 10, NOW + 302_000)).toMatchObject({
      replicas: 4,
      scalingLimited: { status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' },
    });
  });

  test("with behaviors the policies' rates limit each period", () => {
    const history = new ScaleHistory(300_000);
    const behavior = {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max' as const, policies: [{ type: 'Pods' as const, value: 2, periodSeconds: 60 }] },
      scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Max' as const, policies: [{ type: 'Percent' as const, value: 50, periodSeconds: 60 }] },
    };
    history.recordInitial('k', 2, NOW);
    const up = history.normalizeWithBehaviors('k', behavior, 2, 10, 1, 20, NOW);
    expect(up).toMatchObject({ replicas: 4, scalingLimited: { status: 'True', reason: 'ScaleUpLimit' } });
    history.recordScale('k', behavior, 2, 4, NOW);
    // Within the same minute the two pods already added use up the policy.
    expect(history.normalizeWithBehaviors('k', behavior, 4, 10, 1, 20, NOW + 10_000).replicas).toBe(4);
    expect(history.normalizeWithBehaviors('k', behavior, 4, 10, 1, 20, NOW + 61_000).replicas).toBe(6);
    // Down by at most half per minute.
    expect(history.normalizeWithBehaviors('k', behavior, 8, 1, 1, 20, NOW + 200_000)).toMatchObject({
      replicas: 4,
      scalingLimited: { reason: 'ScaleDownLimit' },
    });
  });
});
