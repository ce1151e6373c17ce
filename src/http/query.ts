import { badOptions, badRequest, invalid } from '../api/errors';
import { field, type FieldErrorList } from '../api/field-errors';
import { validateDryRunParam } from '../api/dry-run-validation';
import type { ReadConsistency } from '../storage/interfaces';
import { isTruthyParam, boolOption } from './request-info';

/** Query parameters as the handlers read them; each parser throws kube-apiserver's error. */

/**
 * A bool of the request's options (watch, allowWatchBookmarks, sendInitialEvents, force,
 * orphanDependents) as url.Values convert to it (runtime.Convert_Slice_string_To_bool): never an
 * error, true unless absent, "0" or "false".
 */
export function boolParam(query: URLSearchParams, name: string): boolean {
  return boolOption(query.get(name));
}

const INT64_MAX = 2n ** 63n - 1n;

/**
 * An int64 of the request's options (limit, timeoutSeconds, gracePeriodSeconds) as url.Values convert to it
 * (runtime.Convert_Slice_string_To_int64 and _To_Pointer_int64): absent only when the parameter is; a present but
 * empty value goes to strconv.ParseInt like any other and is refused.
 */
export function intParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  if (!/^[-+]?[0-9]+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  // Query integers are Go int64s: anything wider is refused, as strconv.ParseInt refuses it.
  const n = BigInt(v);
  if (n > INT64_MAX || n < -INT64_MAX - 1n) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(n);
}

/** responsewriters.isPrettyPrint: a non-empty `pretty` is read as strconv.ParseBool reads it, an unparsable one as false. */
export function isPretty(query: URLSearchParams, userAgent: string | undefined): boolean {
  const pretty = query.get('pretty');
  if (pretty) return isTruthyParam(pretty);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

/** dryRun: "All" or the bare flag; anything else is 400 with ValidateDryRun's words (issue 5). */
export function dryRunParam(query: URLSearchParams, optionsKind: string): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  const errs = validateDryRunParam(values);
  if (errs.length > 0) throw badOptions({ group: 'meta.k8s.io', kind: optionsKind }, errs);
  return true;
}

/** resourceVersion and resourceVersionMatch, checked as ListOptions validation checks them. */
export function readConsistency(query: URLSearchParams): ReadConsistency {
  const resourceVersion = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
    throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [field.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', ''])]);
  }
  return { resourceVersion, match };
}

const FIELD_MANAGER_MAX = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * prefixFromUserAgent: the user agent's text before its first `/` (the header's bytes read as
 * UTF-8, as Go reads them), its printable characters only, up to 128 bytes; empty without one.
 */
function prefixFromUserAgent(userAgent: string): string {
  const product = Buffer.from(userAgent, 'latin1').toString('utf8').split('/')[0];
  let prefix = '';
  for (const c of product) {
    if (!PRINTABLE.test(c)) continue;
    if (Buffer.byteLength(prefix + c) > FIELD_MANAGER_MAX) break;
    prefix += c;
  }
  return prefix;
}

/** ValidateFieldManager: at most 128 bytes, and every rune unicode.IsPrint, each one reported at its byte. */
function fieldManagerErrors(given: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (Buffer.byteLength(given) > FIELD_MANAGER_MAX) errs.push(field.tooLong('fieldManager', FIELD_MANAGER_MAX));
  let at = 0;
  for (const c of given) {
    if (!PRINTABLE.test(c)) {
      const code = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      errs.push(field.invalid('fieldManager', given, `invalid character ${code} (at position ${at})`));
    }
    at += Buffer.byteLength(c);
  }
  return errs;
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

const isFieldValidation = (v: string): v is FieldValidation => v === 'Ignore' || v === 'Warn' || v === 'Strict';

export interface WriteOptions {
  dryRun: boolean;
  validation: FieldValidation;
  /** As given, or when absent what the user agent gives (managerOrUserAgent), which may be empty. */
  fieldManager: string;
  force: boolean;
}

/**
 * The options of a write, as ValidateCreateOptions, ValidateUpdateOptions and ValidatePatchOptions
 * check them: every error of force, fieldManager and fieldValidation in one Invalid of the options'
 * kind (dryRun's, a 400 by issue 5, before them). `force` is for apply only, which needs a fieldManager.
 */
export function writeOptions(query: URLSearchParams, userAgent: string | undefined, optionsKind: string, patch?: { apply: boolean }): WriteOptions {
  const dryRun = dryRunParam(query, optionsKind);
  const errs: FieldErrorList = [];
  const given = query.get('fieldManager') ?? '';
  if (patch && !patch.apply && query.has('force')) errs.push(field.forbidden('force', 'may not be specified for non-apply patch'));
  if (patch?.apply && given === '') errs.push(field.required('fieldManager', 'is required for apply patch'));
  errs.push(...fieldManagerErrors(given));
  const validation = query.get('fieldValidation') || 'Warn';
  if (!isFieldValidation(validation)) errs.push(field.notSupported('fieldValidation', validation, ['Ignore', 'Warn', 'Strict']));
  if (errs.length > 0 || !isFieldValidation(validation)) throw invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
  return {
    dryRun,
    validation,
    fieldManager: given === '' ? prefixFromUserAgent(userAgent ?? '') : given,
    force: boolParam(query, 'force'),
  };
}
