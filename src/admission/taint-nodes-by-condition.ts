import { isPlainObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { createOf } from './default-storage-class';

/** v1.TaintNodeNotReady with the NoSchedule effect, the taint a node starts with. */
const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

/**
 * TaintNodesByCondition (plugin/pkg/admission/nodetaint): a node is created tainted not-ready
 * (NoSchedule) unless a taint of that key and effect is there already (Taint.MatchTaint); the node
 * lifecycle controller lifts it once the node reports Ready.
 */
export class TaintNodesByCondition implements AdmissionPlugin {
  readonly name = 'TaintNodesByCondition';

  admit(attrs: AdmissionAttributes): void {
    if (!createOf(attrs, '', 'nodes')) return;
    const node = attrs.object!;
    const spec = isPlainObject(node.spec) ? node.spec : (node.spec = {});
    const taints = Array.isArray(spec.taints) ? spec.taints : [];
    if (taints.some((t: unknown) => isPlainObject(t) && t.key === NOT_READY_TAINT.key && t.effect === NOT_READY_TAINT.effect)) return;
    spec.taints = [...taints, { ...NOT_READY_TAINT }];
  }
}
