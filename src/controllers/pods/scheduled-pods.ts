import type { Pod } from '../../generated/types/core/v1';
import type { InformerFilter } from '../runtime/shared-informers';

/** The pods bound to a node (spec.nodeName set): what the node lifecycle and taint eviction controllers watch, through one shared informer. */
export const scheduledPods: InformerFilter = {
  description: 'spec.nodeName set',
  predicate: { matches: (o) => !!(o as Pod).spec?.nodeName, empty: false },
};
