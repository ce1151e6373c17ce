import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { horizontalpodautoscalers } from './horizontalpodautoscalers';
import { hpaSpec, validateHpaSpec } from './hpa-spec';
import { hpaV1FromV2, hpaV2FromV1 } from './hpa-v1-conversion';
import type { HorizontalPodAutoscaler } from '../generated/types/autoscaling/v1';
import { jsonClone } from '../api/json-clone';

/**
 * autoscaling/v1 HorizontalPodAutoscalers, which `kubectl autoscale` creates: the same objects as
 * autoscaling/v2 (the storage version), converted on every read and write. Validation and the
 * printed columns are v2's, on the converted object, as kube-apiserver validates its internal one.
 */

const asV2 = (hpa: KubeObject): KubeObject => hpaV2FromV1(jsonClone(hpa));

export const horizontalpodautoscalersV1 = defineResource<HorizontalPodAutoscaler>({
  ...horizontalpodautoscalers,
  version: 'v1',
  storageApiVersion: 'autoscaling/v2',
  conversion: { toStorage: hpaV2FromV1, fromStorage: hpaV1FromV2 },
  strategy: strategy<HorizontalPodAutoscaler>({
    ...horizontalpodautoscalers.strategy,
    prepareForCreate: (hpa) => {
      hpa.status = { currentReplicas: 0, desiredReplicas: 0 };
    },
    // SetDefaults_HorizontalPodAutoscaler (v1): only the lower bound.
    applyDefaults: (hpa) => {
      hpaSpec(hpa).minReplicas ??= 1;
    },
    validate: (hpa) => validateHpaSpec(asV2(hpa)),
  }),
  printerColumns: horizontalpodautoscalers.printerColumns.map((column) => ({ ...column, cell: (hpa: KubeObject) => column.cell(asV2(hpa)) })),
});
