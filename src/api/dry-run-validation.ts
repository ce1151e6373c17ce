import { field, type FieldErrorList } from './field-errors';

/**
 * ValidateDryRun, as kube's options validations (create, update, patch, delete) run it: every value
 * must be "All", an empty one (the bare `?dryRun`) included, and a refusal is one error whose value is
 * the whole list as Go's field errors print a slice (JSON). A null element of a body's list is "".
 */
export function validateDryRun(values: readonly (string | null)[]): FieldErrorList {
  const list = values.map((v) => v ?? '');
  if (list.every((v) => v === 'All')) return [];
  return [field.notSupported('dryRun', list, ['All'])];
}

/**
 * A query's dryRun list as kapi takes it: ValidateDryRun's, except that the bare flag (`?dryRun`,
 * an empty value) is a dry run too, as issue 5 specifies (kube refuses it: docs/divergences.md).
 */
export function validateDryRunParam(values: readonly string[]): FieldErrorList {
  return values.every((v) => v === 'All' || v === '') ? [] : validateDryRun(values);
}
