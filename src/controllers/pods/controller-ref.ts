import type { KubeObject, OwnerReference } from '../../api/types';

/** metav1.GetControllerOf: the owner reference with controller: true. */
export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/** metav1.NewControllerRef: the reference a controller puts on what it creates. */
export function newControllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

/** Whether `obj` is controlled by `owner` (by uid, as kube compares). */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  return controllerRefOf(obj)?.uid === owner.metadata.uid;
}
