import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import { isDns1123Label, isDns1123Subdomain } from '../api/name-validation';
import { isPlainObject } from '../api/types';

/** resource.k8s.io/v1 DeviceClaim (a ResourceClaim's or a template's spec.devices): defaults and validation. */

type Obj = Record<string, unknown>;

const ALLOCATION_MODES = ['All', 'ExactCount'];
const TOLERATION_OPERATORS = ['Equal', 'Exists'];

/** SetDefaults_ExactDeviceRequest / _DeviceSubRequest / _DeviceToleration (v1). */
function defaultExact(request: Obj): void {
  request.allocationMode ||= 'ExactCount';
  if (request.allocationMode === 'ExactCount' && !request.count) request.count = 1;
  for (const t of objectsIn(request.tolerations)) t.operator ||= 'Equal';
}

export function defaultDeviceClaim(devices: unknown): void {
  for (const request of objectsIn(objectOf(devices).requests)) {
    if (isPlainObject(request.exactly)) defaultExact(request.exactly);
    for (const sub of objectsIn(request.firstAvailable)) defaultExact(sub);
  }
}

const CEL_PATH = (path: string, i: number) => `${path}.selectors[${i}].cel`;

/** validateSelector: each selector carries a CEL expression. */
function validateSelectors(request: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  objectsIn(request.selectors).forEach((s, i) => {
    if (!isPlainObject(s.cel)) errs.push(field.required(CEL_PATH(path, i), ''));
    else if (!stringOf(s.cel.expression)) errs.push(field.required(`${CEL_PATH(path, i)}.expression`, ''));
  });
  return errs;
}

/** validateExactDeviceRequest / validateDeviceSubRequest: a class, an allocation mode, a count for ExactCount. */
function validateExact(request: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const className = stringOf(request.deviceClassName);
  if (!className) errs.push(field.required(`${path}.deviceClassName`, ''));
  else errs.push(...isDns1123Subdomain(className).map((m) => field.invalid(`${path}.deviceClassName`, className, m)));
  const mode = stringOf(request.allocationMode);
  if (!ALLOCATION_MODES.includes(mode)) errs.push(field.notSupported(`${path}.allocationMode`, mode, ALLOCATION_MODES));
  else if (mode === 'ExactCount' && !(typeof request.count === 'number' && request.count > 0))
    errs.push(field.invalid(`${path}.count`, request.count ?? 0, 'must be greater than zero'));
  else if (mode === 'All' && request.count) errs.push(field.invalid(`${path}.count`, request.count, "must not be specified when allocationMode is 'All'"));
  objectsIn(request.tolerations).forEach((t, i) => {
    const op = stringOf(t.operator);
    if (!TOLERATION_OPERATORS.includes(op)) errs.push(field.notSupported(`${path}.tolerations[${i}].operator`, op, TOLERATION_OPERATORS));
  });
  return [...errs, ...validateSelectors(request, path)];
}

function validateName(name: string, path: string, seen: Set<string>): FieldErrorList {
  if (!name) return [field.required(path, '')];
  if (seen.has(name)) return [field.duplicate(path, name)];
  seen.add(name);
  return isDns1123Label(name).map((m) => field.invalid(path, name, m));
}

/** validateDeviceClaim: unique DNS-label request names, each with exactly one of `exactly` and `firstAvailable`. */
export function validateDeviceClaim(devices: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const names = new Set<string>();
  objectsIn(objectOf(devices).requests).forEach((request, i) => {
    const at = `${path}.requests[${i}]`;
    errs.push(...validateName(stringOf(request.name), `${at}.name`, names));
    const exact = isPlainObject(request.exactly);
    const alternatives = objectsIn(request.firstAvailable);
    const union = 'exactly one of `exactly` or `firstAvailable` is required';
    if (!exact && alternatives.length === 0) errs.push(field.required(at, union));
    else if (exact && alternatives.length > 0) errs.push(field.invalid(at, null, `${union}, but multiple fields are set`));
    if (exact) errs.push(...validateExact(request.exactly as Obj, `${at}.exactly`));
    const subNames = new Set<string>();
    alternatives.forEach((sub, j) => {
      errs.push(...validateName(stringOf(sub.name), `${at}.firstAvailable[${j}].name`, subNames));
      errs.push(...validateExact(sub, `${at}.firstAvailable[${j}]`));
    });
  });
  return errs;
}
