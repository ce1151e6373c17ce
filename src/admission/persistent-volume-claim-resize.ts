import type { MaybePromise } from '../api/maybe-promise';
import { forbidden } from '../api/errors';
import { objectOf } from '../api/json-read';
import { compareQuantities, parseQuantity, ZERO_QUANTITY } from '../api/quantity';
import type { KubeObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

const CLAIMS = { group: '', resource: 'persistentvolumeclaims' };
/** v1.BetaStorageClassAnnotation, read before spec.storageClassName (GetPersistentVolumeClaimClass). */
const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

function claimClass(claim: KubeObject): string {
  const beta = claim.metadata.annotations?.[BETA_CLASS_ANNOTATION];
  if (beta !== undefined) return beta;
  const name = objectOf(claim.spec).storageClassName;
  return typeof name === 'string' ? name : '';
}

function requestedStorage(claim: KubeObject) {
  return parseQuantity(objectOf(objectOf(objectOf(claim.spec).resources).requests).storage) ?? ZERO_QUANTITY;
}

/**
 * PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize): a claim's
 * storage request may grow only while it is Bound, and only when its class (unchanged) is a
 * StorageClass with allowVolumeExpansion.
 */
export class PersistentVolumeClaimResize implements AdmissionPlugin {
  readonly name = 'PersistentVolumeClaimResize';

  constructor(private readonly storageClass: (name: string) => MaybePromise<KubeObject | null>) {}

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    const { object: claim, oldObject: old } = attrs;
    if (attrs.operation !== 'UPDATE' || attrs.def.group !== '' || attrs.def.resource !== 'persistentvolumeclaims' || attrs.subresource !== '' || !claim || !old)
      return;
    return this.validateExpansion(attrs, claim, old);
  }

  private async validateExpansion(attrs: AdmissionAttributes, claim: KubeObject, old: KubeObject): Promise<void> {
    if (compareQuantities(requestedStorage(claim), requestedStorage(old)) <= 0) return;
    if (objectOf(old.status).phase !== 'Bound') throw forbidden(CLAIMS, attrs.name, 'Only bound persistent volume claims can be expanded');
    if (!(await this.allowResize(claim, old))) {
      throw forbidden(CLAIMS, attrs.name, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  }

  private async allowResize(claim: KubeObject, old: KubeObject): Promise<boolean> {
    const name = claimClass(claim);
    if (name === '' || name !== claimClass(old)) return false;
    return (await this.storageClass(name))?.allowVolumeExpansion === true;
  }
}
