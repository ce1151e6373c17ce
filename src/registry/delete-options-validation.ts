import { badOptions, invalid } from '../api/errors';
import { validateDryRun, validateDryRunParam } from '../api/dry-run-validation';
import { field, type FieldErrorList } from '../api/field-errors';

const DELETE_OPTIONS = { group: 'meta.k8s.io', kind: 'DeleteOptions' };
const POLICIES = ['Foreground', 'Background', 'Orphan'];

/** Delete options as decoded, each field of its Go type or absent (null is absent). */
export interface DecodedDeleteOptions {
  orphanDependents?: boolean | null;
  propagationPolicy?: string | null;
  dryRun?: (string | null)[] | null;
}

/**
 * ValidateDeleteOptions, which kube runs in the DELETE handlers and again in rest.BeforeDelete
 * (so an eviction's delete options are checked too): both propagation options set (an empty
 * policy is set), then the policy's value, as a 422; except that an unknown dryRun value, like
 * `refused` (options the caller refuses outright), is 400 as issues 5 and 6 ask. Options read from
 * the query (`fromQuery`) take the bare dryRun flag as a dry run, as every verb's query does.
 */
export function validateDeleteOptions(raw: DecodedDeleteOptions, refused: FieldErrorList = [], fromQuery = false): void {
  const dryRun = fromQuery ? validateDryRunParam((raw.dryRun ?? []).map((v) => v ?? '')) : validateDryRun(raw.dryRun ?? []);
  if (dryRun.length + refused.length > 0) throw badOptions(DELETE_OPTIONS, [...dryRun, ...refused]);
  const errs: FieldErrorList = [];
  const policy = raw.propagationPolicy;
  if (typeof raw.orphanDependents === 'boolean' && typeof policy === 'string') {
    errs.push(field.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (typeof policy === 'string' && !POLICIES.includes(policy)) errs.push(field.notSupported('propagationPolicy', policy, [...POLICIES, 'nil']));
  if (errs.length > 0) throw invalid(DELETE_OPTIONS, '', errs);
}
