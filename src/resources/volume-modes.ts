import { field, type FieldErrorList } from '../api/field-errors';
import { nameIsDnsSubdomain } from '../api/name-validation';
import { isPositiveQuantity } from '../api/quantity';
import type { KubeObject } from '../api/types';

/** What PersistentVolumes and PersistentVolumeClaims share: access and volume modes, classes, sizes. */

type Obj = Record<string, unknown>;

/** sets.List(supportedAccessModes): sorted, as kube's messages list them. */
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];

/** The beta annotation wins over spec.storageClassName, as in kube's helpers. */
const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** The access mode checks ValidatePersistentVolumeSpec and ValidatePersistentVolumeClaimSpec share. */
export function validateAccessModes(modes: unknown, path: string, requiredDetail: string): FieldErrorList {
  const list = Array.isArray(modes) ? modes : [];
  const errs: FieldErrorList = list.length === 0 ? [field.required(path, requiredDetail)] : [];
  let readWriteOncePod = false;
  let others = false;
  for (const mode of list) {
    if (!ACCESS_MODES.includes(mode)) errs.push(field.notSupported(path, mode, ACCESS_MODES));
    else if (mode === 'ReadWriteOncePod') readWriteOncePod = true;
    else others = true;
  }
  if (readWriteOncePod && others) errs.push(field.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** ValidateClassName for a class a volume or claim names; empty means none. */
export function validateClassName(value: unknown, path: string): FieldErrorList {
  if (typeof value !== 'string' || value === '') return [];
  return nameIsDnsSubdomain(value, false).map((msg) => field.invalid(path, value, msg));
}

export function validateVolumeMode(value: unknown, path: string): FieldErrorList {
  return value === undefined || value === null || VOLUME_MODES.includes(value as string) ? [] : [field.notSupported(path, value, VOLUME_MODES)];
}

/** ValidatePositiveQuantityValue. */
export function validatePositiveQuantity(value: unknown, path: string): FieldErrorList {
  return isPositiveQuantity(value) ? [] : [field.invalid(path, String(value), 'must be greater than zero')];
}

/** GetAccessModesAsString: the short forms in a fixed order, each once. */
export function accessModesCell(modes: unknown): string {
  const list = Array.isArray(modes) ? modes : [];
  const short: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short
    .filter(([mode]) => list.includes(mode))
    .map(([, s]) => s)
    .join(',');
}

/** GetPersistentVolumeClass / GetPersistentVolumeClaimClass. */
export function storageClassCell(obj: KubeObject, spec: Obj): string {
  const annotated = obj.metadata.annotations?.[BETA_STORAGE_CLASS];
  if (annotated !== undefined) return annotated;
  return typeof spec.storageClassName === 'string' ? spec.storageClassName : '';
}

/** A Quantity printed by its String(): the zero quantity is "0". */
export function quantityCell(value: unknown): string {
  return value === undefined || value === null ? '0' : String(value);
}

/** Pointer fields printed as kubectl does: "<unset>" when nil. */
export const unsetCell = (value: unknown): string => (typeof value === 'string' ? value : '<unset>');
