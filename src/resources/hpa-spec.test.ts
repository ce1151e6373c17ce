import type { KubeObject } from '../api/types';
import { fieldErrorMessage } from '../api/field-errors';
import { defaultHpa, validateHpaSpec } from './hpa-spec';

const hpa = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec });
const messages = (obj: KubeObject) => validateHpaSpec(obj).map(fieldErrorMessage);

describe('defaultHpa', () => {
  test('one replica at least and 80% CPU when no metric is given; no behavior unless one is given', () => {
    const obj = hpa({ scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3 });
    defaultHpa(obj);
    expect(obj.spec).toEqual({
      scaleTargetRef: { kind: 'Deployment', name: 'web' },
      maxReplicas: 3,
      minReplicas: 1,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
    });
  });

  test('a behavior given gets both directions filled in; what the client set wins', () => {
    const obj = hpa({ maxReplicas: 3, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } });
    defaultHpa(obj);
    expect((obj.spec as Record<string, unknown>).behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }], stabilizationWindowSeconds: 60 },
    });
  });
});

describe('validateHpaSpec', () => {
  test('replica bounds and the target reference', () => {
    expect(messages(hpa({ minReplicas: 0, maxReplicas: 0, scaleTargetRef: { name: 'a/b' } }))).toEqual([
      'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
      'spec.maxReplicas: Invalid value: 0: must be greater than 0',
      'spec.scaleTargetRef.kind: Required value',
      'spec.scaleTargetRef.name: Invalid value: "a/b": may not contain \'/\'',
    ]);
    expect(messages(hpa({ minReplicas: 5, maxReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: 'web' } }))).toEqual([
      'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
    ]);
  });

  test('metrics: a known type with its source, and a valid target', () => {
    const ref = { kind: 'Deployment', name: 'web' };
    expect(
      messages(
        hpa({
          scaleTargetRef: ref,
          maxReplicas: 2,
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } },
            { type: 'Pods', resource: { name: 'cpu', target: { type: 'Bogus', averageValue: '-1' } } },
            { type: 'Nope' },
          ],
        }),
      ),
    ).toEqual([
      'spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
      'spec.metrics[1].resource.target.type: Invalid value: "Bogus": must be either Utilization, Value, or AverageValue',
      'spec.metrics[1].resource.target.averageValue: Invalid value: "-1": must be positive',
      'spec.metrics[1].pods: Required value: must populate information for the given metric source',
      'spec.metrics[2].type: Unsupported value: "Nope": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    ]);
  });

  test('behavior: windows, policies and select policy', () => {
    const behavior = {
      scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Most', policies: [{ type: 'Pods', value: 0, periodSeconds: 2000 }] },
      scaleDown: { policies: [] },
    };
    expect(messages(hpa({ scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 2, behavior }))).toEqual([
      'spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600',
      'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800',
      'spec.behavior.scaleDown.policies: Required value: must specify at least one Policy',
    ]);
  });
});
