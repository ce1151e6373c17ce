import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { createOf } from './default-storage-class';

/** volumeutil.PVCProtectionFinalizer and PVProtectionFinalizer. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

/**
 * StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection): every
 * claim and volume is created with its protection finalizer, which the pvc-protection and
 * pv-protection controllers remove once nothing uses it.
 */
export class StorageObjectInUseProtection implements AdmissionPlugin {
  readonly name = 'StorageObjectInUseProtection';

  admit(attrs: AdmissionAttributes): void {
    const finalizer = createOf(attrs, '', 'persistentvolumeclaims')
      ? PVC_PROTECTION_FINALIZER
      : createOf(attrs, '', 'persistentvolumes')
        ? PV_PROTECTION_FINALIZER
        : null;
    if (!finalizer) return;
    const meta = attrs.object!.metadata;
    const finalizers = meta.finalizers ?? [];
    if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
  }
}
