import { compareQuantities, parseQuantity, type Quantity } from '../../api/quantity';
import type { PersistentVolume, PersistentVolumeClaim } from '../../generated/types/core/v1';
import { selectorMatcher } from '../pods/selector';

const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** v1helper.GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "". */
export const claimClass = (claim: PersistentVolumeClaim): string => claim.metadata.annotations?.[BETA_CLASS_ANNOTATION] ?? claim.spec?.storageClassName ?? '';

/** v1helper.GetPersistentVolumeClass. */
export const volumeClass = (volume: PersistentVolume): string => volume.metadata.annotations?.[BETA_CLASS_ANNOTATION] ?? volume.spec?.storageClassName ?? '';

const storageOf = (resources: Record<string, string> | undefined): Quantity => parseQuantity(resources?.storage ?? '0') ?? parseQuantity('0')!;

/** isVolumeBoundToClaim: the volume's claimRef names the claim (and its uid, once it has one). */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  if (!ref || ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata.uid;
}

/** checkVolumeModeMismatches: both default to Filesystem. */
const volumeModeMatches = (volume: PersistentVolume, claim: PersistentVolumeClaim): boolean =>
  (volume.spec?.volumeMode ?? 'Filesystem') === (claim.spec?.volumeMode ?? 'Filesystem');

/** The claim's access modes are all among the volume's (the PV index's allPossibleMatchingAccessModes). */
const accessModesMatch = (volume: PersistentVolume, claim: PersistentVolumeClaim): boolean =>
  (claim.spec?.accessModes ?? []).every((mode) => (volume.spec?.accessModes ?? []).includes(mode));

/**
 * checkVolumeSatisfyClaim, for a claim that names its volume: why the volume cannot serve it, in
 * the controller's words, or null.
 */
export function volumeMismatch(volume: PersistentVolume, claim: PersistentVolumeClaim): string | null {
  if (compareQuantities(storageOf(volume.spec?.capacity), storageOf(claim.spec?.resources?.requests)) < 0) return 'requested PV is too small';
  if (volumeClass(volume) !== claimClass(claim)) return 'storageClassName does not match';
  if (!volumeModeMatches(volume, claim)) return 'incompatible volumeMode';
  if (!accessModesMatch(volume, claim)) return 'incompatible accessMode';
  return null;
}

/**
 * persistentvolume.FindMatchingVolume without node affinity: a volume already pre-bound to the
 * claim if it is big enough and of its class; else the smallest unclaimed volume of the claim's
 * class, access modes and volume mode, matching its selector, at least as big as it asks. A claim
 * whose binding waits for a consumer (no node chosen yet) takes only a pre-bound volume.
 */
export function findBestMatch(claim: PersistentVolumeClaim, volumes: PersistentVolume[], delayBinding: boolean): PersistentVolume | null {
  const requested = storageOf(claim.spec?.resources?.requests);
  const requestedClass = claimClass(claim);
  const selects = claim.spec?.selector ? selectorMatcher(claim.spec.selector) : () => true;
  let best: PersistentVolume | null = null;
  for (const volume of volumes) {
    if (!accessModesMatch(volume, claim) || !volumeModeMatches(volume, claim)) continue;
    const size = storageOf(volume.spec?.capacity);
    if (isVolumeBoundToClaim(volume, claim)) {
      if (compareQuantities(size, requested) < 0 || volumeClass(volume) !== requestedClass) continue;
      return volume;
    }
    if (delayBinding) continue;
    if (volume.spec?.claimRef || volume.metadata.deletionTimestamp) continue;
    if (!selects(volume.metadata.labels) || volumeClass(volume) !== requestedClass) continue;
    if (compareQuantities(size, requested) < 0) continue;
    if (!best || compareQuantities(storageOf(best.spec?.capacity), size) > 0) best = volume;
  }
  return best;
}
