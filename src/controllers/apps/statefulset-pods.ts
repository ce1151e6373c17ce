import type { StatefulSet } from '../../generated/types/apps/v1';
import type { PersistentVolumeClaim, Pod, PodTemplateSpec } from '../../generated/types/core/v1';
import { newControllerRef } from '../pods/controller-ref';
import { isPodAvailable, isPodReady } from '../pods/pod-conditions';
import { podFromTemplate } from '../pods/pod-control';
import { POD_REVISION_LABEL } from './controller-history';
import { jsonClone } from '../../api/json-clone';

/** apps.StatefulSetPodNameLabel. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** apps.PodIndexLabel (PodIndexLabel, on by default since 1.28). */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

const STATEFUL_POD_NAME = /^(.*)-([0-9]+)$/;
const INT32_MAX = 2 ** 31 - 1;

/** getParentNameAndOrdinal: `<set>-<ordinal>`, or ordinal -1 for a name of another form. */
export function parentAndOrdinal(pod: Pod): { parent: string; ordinal: number } {
  const match = STATEFUL_POD_NAME.exec(pod.metadata.name ?? '');
  if (!match) return { parent: '', ordinal: -1 };
  const ordinal = Number(match[2]);
  return { parent: match[1]!, ordinal: ordinal <= INT32_MAX ? ordinal : -1 };
}

export const ordinalOf = (pod: Pod): number => parentAndOrdinal(pod).ordinal;
export const startOrdinal = (set: StatefulSet): number => set.spec?.ordinals?.start ?? 0;
export const replicasOf = (set: StatefulSet): number => set.spec?.replicas ?? 1;
export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata.name}-${ordinal}`;
export const claimName = (set: StatefulSet, template: PersistentVolumeClaim, ordinal: number): string =>
  `${template.metadata.name}-${set.metadata.name}-${ordinal}`;

/** isMemberOf: named as one of the set's pods. */
export const isMemberOf = (set: StatefulSet, pod: Pod): boolean => parentAndOrdinal(pod).parent === set.metadata.name;

export const podInOrdinalRange = (set: StatefulSet, pod: Pod): boolean => {
  const ordinal = ordinalOf(pod);
  return ordinal >= startOrdinal(set) && ordinal < startOrdinal(set) + replicasOf(set);
};

export const podRevision = (pod: Pod): string => pod.metadata.labels?.[POD_REVISION_LABEL] ?? '';

/** isCreated: the API server has it (a pod only built here has no phase). */
export const isCreated = (pod: Pod): boolean => !!pod.status?.phase;
export const isTerminating = (pod: Pod): boolean => !!pod.metadata.deletionTimestamp;
export const isRunningAndReady = (pod: Pod): boolean => pod.status?.phase === 'Running' && isPodReady(pod);
export const isRunningAndAvailable = (pod: Pod, minReadySeconds: number, nowMs: number): boolean =>
  pod.status?.phase === 'Running' && isPodAvailable(pod, minReadySeconds, nowMs);
/** isUnavailable: not available, or on its way out. */
export const isUnavailable = (pod: Pod, minReadySeconds: number, nowMs: number): boolean =>
  !isRunningAndAvailable(pod, minReadySeconds, nowMs) || isTerminating(pod);

/** getPersistentVolumeClaims: the claims a pod of the set uses, by template name, labelled with the set's selector. */
export function claimsFor(set: StatefulSet, ordinal: number): Map<string, PersistentVolumeClaim> {
  const claims = new Map<string, PersistentVolumeClaim>();
  for (const template of set.spec?.volumeClaimTemplates ?? []) {
    const labels = { ...template.metadata.labels, ...set.spec?.selector?.matchLabels };
    claims.set(template.metadata.name ?? '', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName(set, template, ordinal),
        namespace: set.metadata.namespace,
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
        ...(template.metadata.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      },
      spec: jsonClone(template.spec ?? {}),
    });
  }
  return claims;
}

/** identityMatches: name, namespace and pod-name label are the set's for the pod's ordinal. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return (
    ordinal >= 0 &&
    parent === set.metadata.name &&
    pod.metadata.namespace === set.metadata.namespace &&
    pod.metadata.labels?.[POD_NAME_LABEL] === pod.metadata.name
  );
}

/** storageMatches: every claim template is mounted from the pod's own claim. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  return [...claimsFor(set, ordinal)].every(([name, claim]) => volumes.get(name)?.persistentVolumeClaim?.claimName === claim.metadata.name);
}

/** updateIdentity: the pod's name, namespace and identity labels. */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = ordinalOf(pod);
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels = { ...pod.metadata.labels, [POD_NAME_LABEL]: pod.metadata.name, [POD_INDEX_LABEL]: String(ordinal) };
}

/** updateStorage: the claims' volumes first (in template order), replacing volumes of the same name. */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = claimsFor(set, ordinalOf(pod));
  pod.spec ??= {};
  const volumes = [...claims].map(([name, claim]) => ({ name, persistentVolumeClaim: { claimName: claim.metadata.name! } }));
  pod.spec.volumes = [...volumes, ...(pod.spec.volumes ?? []).filter((v) => !claims.has(v.name ?? ''))];
}

/** newStatefulSetPod (initIdentity: hostname and subdomain too) with setPodRevision: the set's template for one ordinal, at a revision. */
export function newStatefulSetPod(set: StatefulSet, template: PodTemplateSpec, ordinal: number, revision: string): Pod {
  const pod = podFromTemplate(template, set, newControllerRef(set, 'apps/v1', 'StatefulSet'));
  delete pod.metadata.generateName;
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace;
  updateIdentity(set, pod);
  pod.spec!.hostname = pod.metadata.name;
  if (set.spec?.serviceName) pod.spec!.subdomain = set.spec.serviceName;
  updateStorage(set, pod);
  pod.metadata.labels = { ...pod.metadata.labels, [POD_REVISION_LABEL]: revision };
  return pod;
}
