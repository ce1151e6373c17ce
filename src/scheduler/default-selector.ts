import { fromLabelSelectorStruct, matchesLabels, type LabelSelector } from '../api/label-selector';
import type { KubeObject } from '../api/types';
import type { Pod, ReplicationController, Service } from '../generated/types/core/v1';
import type { ReplicaSet, StatefulSet } from '../generated/types/apps/v1';

/** Reads of what may select a pod: a namespace's Services, and a controller by kind and namespaced name. */
export interface SelectorSources {
  services(namespace: string): Service[];
  controller(kind: 'ReplicationController' | 'ReplicaSet' | 'StatefulSet', namespace: string, name: string): KubeObject | undefined;
}

const equals = (labels: Record<string, string>): LabelSelector => Object.entries(labels).map(([key, v]) => ({ key, operator: 'Equals' as const, values: [v] }));

/**
 * helper.DefaultSelector: the selectors of the Services over the pod merged, with its controlling
 * ReplicationController's, ReplicaSet's or StatefulSet's added; null when that selects nothing.
 */
export function defaultSelector(pod: Pod, sources: SelectorSources): LabelSelector | null {
  const namespace = pod.metadata.namespace ?? '';
  const merged: Record<string, string> = {};
  for (const s of sources.services(namespace)) {
    const sel = s.spec?.selector;
    if (sel && Object.keys(sel).length > 0 && matchesLabels(equals(sel), pod.metadata.labels)) Object.assign(merged, sel);
  }
  const owner = pod.metadata.ownerReferences?.find((r) => r.controller === true);
  let extra: LabelSelector = [];
  if (owner?.apiVersion === 'v1' && owner.kind === 'ReplicationController') {
    const rc = sources.controller('ReplicationController', namespace, owner.name) as ReplicationController | undefined;
    Object.assign(merged, rc?.spec?.selector ?? {});
  } else if (owner?.apiVersion === 'apps/v1' && (owner.kind === 'ReplicaSet' || owner.kind === 'StatefulSet')) {
    const set = sources.controller(owner.kind, namespace, owner.name) as ReplicaSet | StatefulSet | undefined;
    if (set?.spec?.selector) extra = fromLabelSelectorStruct(set.spec.selector as Parameters<typeof fromLabelSelectorStruct>[0]);
  }
  const selector = [...equals(merged), ...extra];
  return selector.length === 0 ? null : selector;
}
