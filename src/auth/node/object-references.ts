import type { Container, EphemeralContainer, PersistentVolume, Pod, Volume } from '../../generated/types/core/v1';

/** The containers of every kind (podutil.AllContainers). */
function allContainers(pod: Pod): (Container | EphemeralContainer)[] {
  const spec = pod.spec ?? {};
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

const named = (names: (string | undefined)[]): string[] => [...new Set(names.filter((n): n is string => !!n))];

/** podutil.VisitPodSecretNames over all containers: the secrets a pod references. */
export function podSecretNames(pod: Pod): string[] {
  const names: (string | undefined)[] = (pod.spec?.imagePullSecrets ?? []).map((s) => s.name);
  for (const c of allContainers(pod)) {
    for (const e of c.envFrom ?? []) names.push(e.secretRef?.name);
    for (const e of c.env ?? []) names.push(e.valueFrom?.secretKeyRef?.name);
  }
  for (const v of pod.spec?.volumes ?? []) {
    names.push(
      v.azureFile?.secretName,
      v.cephfs?.secretRef?.name,
      v.cinder?.secretRef?.name,
      v.flexVolume?.secretRef?.name,
      v.rbd?.secretRef?.name,
      v.secret?.secretName,
      v.scaleIO?.secretRef?.name,
      v.iscsi?.secretRef?.name,
      v.storageos?.secretRef?.name,
      v.csi?.nodePublishSecretRef?.name,
    );
    for (const source of v.projected?.sources ?? []) names.push(source.secret?.name);
  }
  return named(names);
}

/** podutil.VisitPodConfigmapNames over all containers: the config maps a pod references. */
export function podConfigMapNames(pod: Pod): string[] {
  const names: (string | undefined)[] = [];
  for (const c of allContainers(pod)) {
    for (const e of c.envFrom ?? []) names.push(e.configMapRef?.name);
    for (const e of c.env ?? []) names.push(e.valueFrom?.configMapKeyRef?.name);
  }
  for (const v of pod.spec?.volumes ?? []) {
    names.push(v.configMap?.name);
    for (const source of v.projected?.sources ?? []) names.push(source.configMap?.name);
  }
  return named(names);
}

/** ephemeral.VolumeClaimName: the claim made for a pod's generic ephemeral volume. */
const ephemeralClaimName = (pod: Pod, volume: Volume): string => `${pod.metadata.name}-${volume.name}`;

/** The claims a pod's volumes use, its ephemeral volumes' included. */
export function podClaimNames(pod: Pod): string[] {
  return named((pod.spec?.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? ephemeralClaimName(pod, v) : undefined)));
}

/**
 * resourceclaim.Name for each of a pod's resource claims: a named claim, or the one generated
 * from a template as the pod's status records it (none yet when it does not); and the claim of
 * its extended resources.
 */
export function podResourceClaimNames(pod: Pod): string[] {
  const statuses = pod.status?.resourceClaimStatuses ?? [];
  const names = (pod.spec?.resourceClaims ?? []).map((c) => c.resourceClaimName ?? statuses.find((s) => s.name === c.name)?.resourceClaimName);
  names.push(pod.status?.extendedResourceClaimStatus?.resourceClaimName);
  return named(names);
}

/**
 * pvutil.VisitPVSecretNames, the secrets a kubelet sees (not the CSI controller ones): in the
 * namespace the source names, else the bound claim's.
 */
export function persistentVolumeSecrets(pv: PersistentVolume): { namespace: string; name: string }[] {
  const spec = pv.spec ?? {};
  const claimNamespace = spec.claimRef?.namespace ?? '';
  const refs: { namespace?: string; name?: string }[] = [
    { namespace: spec.azureFile?.secretNamespace, name: spec.azureFile?.secretName },
    spec.cephfs?.secretRef ?? {},
    spec.cinder?.secretRef ?? {},
    spec.flexVolume?.secretRef ?? {},
    spec.rbd?.secretRef ?? {},
    spec.scaleIO?.secretRef ?? {},
    spec.iscsi?.secretRef ?? {},
    spec.storageos?.secretRef ?? {},
    spec.csi?.nodePublishSecretRef ?? {},
    spec.csi?.nodeStageSecretRef ?? {},
    spec.csi?.nodeExpandSecretRef ?? {},
  ];
  return refs.filter((r) => r.name).map((r) => ({ namespace: r.namespace || claimNamespace, name: r.name! }));
}
