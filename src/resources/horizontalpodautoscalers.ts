import { isPlainObject, type KubeObject } from '../api/types';
import type { HorizontalPodAutoscaler } from '../generated/types/autoscaling/v2';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { defaultHpa, hpaSpec, validateHpaSpec } from './hpa-spec';
import { formatHpaTargets } from './hpa-targets';
import { validateHorizontalPodAutoscalerStatusUpdate } from './status-validation';

/**
 * autoscaling/v2 HorizontalPodAutoscaler, defaulted and validated as kube-apiserver does; the
 * storage version, which autoscaling/v1 converts to and from (horizontalpodautoscalers-v1.ts). No
 * controller scales anything.
 */

type Obj = Record<string, unknown>;

const status = (hpa: KubeObject): Obj => (isPlainObject(hpa.status) ? hpa.status : {});

export const horizontalpodautoscalers = defineResource<HorizontalPodAutoscaler>({
  group: 'autoscaling',
  version: 'v2',
  resource: 'horizontalpodautoscalers',
  kind: 'HorizontalPodAutoscaler',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  subresources: ['status'],
  strategy: strategy<HorizontalPodAutoscaler>({
    validateStatusUpdate: validateHorizontalPodAutoscalerStatusUpdate,
    prepareForCreate: (hpa) => {
      hpa.status = { desiredReplicas: 0 };
    },
    applyDefaults: defaultHpa,
    validate: validateHpaSpec,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Reference',
      type: 'string',
      description:
        'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.',
      cell: (hpa) => {
        const ref = isPlainObject(hpaSpec(hpa).scaleTargetRef) ? (hpaSpec(hpa).scaleTargetRef as Obj) : {};
        return `${ref.kind ?? ''}/${ref.name ?? ''}`;
      },
    },
    {
      name: 'Targets',
      type: 'string',
      description:
        'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.',
      cell: (hpa) => formatHpaTargets(hpaSpec(hpa).metrics, status(hpa).currentMetrics),
    },
    {
      name: 'MinPods',
      type: 'string',
      description:
        'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.',
      cell: (hpa) => (typeof hpaSpec(hpa).minReplicas === 'number' ? String(hpaSpec(hpa).minReplicas) : '<unset>'),
    },
    {
      name: 'MaxPods',
      type: 'string',
      description: 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.',
      cell: (hpa) => (typeof hpaSpec(hpa).maxReplicas === 'number' ? hpaSpec(hpa).maxReplicas : 0),
    },
    {
      name: 'Replicas',
      type: 'string',
      description: 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
      cell: (hpa) => (typeof status(hpa).currentReplicas === 'number' ? status(hpa).currentReplicas : 0),
    },
    AGE_COLUMN,
  ],
});
