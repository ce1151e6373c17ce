import type { Pod } from '../generated/types/core/v1';
import type { LabelSelector } from '../api/label-selector';
import type { NodeInfo, PodInfo } from './node-info';

/** framework.Code for a node a filter turns down: Unschedulable may change by preemption, the other never. */
export type RejectionCode = 'Unschedulable' | 'UnschedulableAndUnresolvable';

/** A filter plugin's answer for a node it turns down: its reasons, as the FailedScheduling message counts them. */
export interface Rejection {
  plugin: string;
  code: RejectionCode;
  reasons: string[];
}

export const reject = (plugin: string, code: RejectionCode, ...reasons: string[]): Rejection => ({ plugin, code, reasons });

/** What a scheduling cycle reads beyond the cache: namespaces' labels and the pod's default spreading selector. */
export interface ClusterLookups {
  namespaceLabels(namespace: string): Record<string, string> | undefined;
  /** helper.DefaultSelector: the selectors of the Services, ReplicationControllers, ReplicaSets and StatefulSets over the pod; null for none. */
  defaultSelector(pod: Pod): LabelSelector | null;
}

/** One pod's scheduling cycle: the pod, every node, and what the PreFilter stage worked out. */
export interface Cycle {
  pod: Pod;
  info: PodInfo;
  nodes: NodeInfo[];
  lookups: ClusterLookups;
}

export const MAX_NODE_SCORE = 100;
