import { setOwn, type KubeObject, type ObjectMeta } from '../api/types';
import { withGoZerosOfKind } from '../schema/go-zeros';

/** metav1.ObjectMeta's field order, which kube-apiserver's JSON follows. */
const META_ORDER: (keyof ObjectMeta)[] = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/**
 * kind, apiVersion, metadata (in ObjectMeta order), the body, and status last: as Go structs print,
 * with the zero values Go's encoder writes (schema/go-zeros.ts).
 */
export function inWireOrder(obj: KubeObject, kind: string, apiVersion: string): KubeObject {
  withGoZerosOfKind(apiVersion, kind, obj);
  const meta: Record<string, unknown> = {};
  const source = (obj.metadata ?? {}) as Record<string, unknown>;
  for (const k of META_ORDER) {
    // The resourceVersion slot is always kept, so that the revision read back from etcd lands in its place.
    if (source[k] !== undefined || k === 'resourceVersion') setOwn(meta, k, source[k]);
  }
  for (const k of Object.keys(source)) if (!Object.prototype.hasOwnProperty.call(meta, k) && source[k] !== undefined) setOwn(meta, k, source[k]);
  const out: KubeObject = { kind, apiVersion, metadata: meta as ObjectMeta };
  for (const k of Object.keys(obj)) {
    if (k !== 'kind' && k !== 'apiVersion' && k !== 'metadata' && k !== 'status') setOwn(out, k, obj[k]);
  }
  if (obj.status !== undefined) out.status = obj.status;
  return out;
}
