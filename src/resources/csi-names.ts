import { field, type FieldErrorList } from '../api/field-errors';
import { isDns1123Subdomain, isQualifiedName } from '../api/name-validation';

/** The names storage.k8s.io kinds give CSI drivers. */

const MAX_CSI_DRIVER_NAME = 63;

/** ValidateCSIDriverName: a lower-cased DNS subdomain of at most 63 characters. */
export function validateCsiDriverName(name: string, path: string): FieldErrorList {
  if (!name) return [field.required(path)];
  const errs: FieldErrorList = [];
  if (name.length > MAX_CSI_DRIVER_NAME) errs.push(field.tooLong(path, MAX_CSI_DRIVER_NAME));
  errs.push(...isDns1123Subdomain(name.toLowerCase()).map((msg) => field.invalid(path, name, msg)));
  return errs;
}

/** validateProvisioner: a lower-cased qualified name. */
export function validateProvisionerName(name: string, path: string): FieldErrorList {
  if (!name) return [field.required(path)];
  const lower = name.toLowerCase();
  return isQualifiedName(lower).map((msg) => field.invalid(path, lower, msg));
}
