import { jsonEqual } from '../api/deep-equal';
import { field, type FieldErrorList } from '../api/field-errors';
import { jsonClone } from '../api/json-clone';
import { isPlainObject } from '../api/types';

/** What a Pod create and update may hold in its spec beyond ValidatePodSpec: kube's ValidatePodCreate and ValidatePodUpdate. */

type Obj = Record<string, unknown>;

const asList = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const MAX_INT32 = 2147483647;

const UPDATABLE_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];
const IMMUTABLE_SPEC_MESSAGE = `pod updates may not change fields other than ${UPDATABLE_FIELDS.join(',')}`;

/** ValidateContainerUpdates: the list keeps its length (else validation stops here) and every image stays set. */
function containerUpdateErrors(next: Obj[], prev: Obj[], path: string): { errs: FieldErrorList; stop: boolean } {
  if (next.length !== prev.length) return { errs: [field.forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldErrorList = [];
  next.forEach((c, i) => {
    const image = typeof c.image === 'string' ? c.image : '';
    if (image === '') errs.push(field.required(`${path}[${i}].image`));
    if (image.trim() !== image) errs.push(field.invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

/** The activeDeadlineSeconds rule: set once, then only lowered; past MaxInt32 or negative stops validation. */
function activeDeadlineErrors(next: unknown, prev: unknown): { errs: FieldErrorList; stop: boolean } {
  const path = 'spec.activeDeadlineSeconds';
  if (typeof next === 'number') {
    if (next < 0 || next > MAX_INT32) return { errs: [field.invalid(path, next, `must be between 0 and ${MAX_INT32}, inclusive`)], stop: true };
    if (typeof prev === 'number' && prev < next) return { errs: [field.invalid(path, next, 'must be less than or equal to previous value')], stop: true };
    return { errs: [], stop: false };
  }
  if (typeof prev === 'number') return { errs: [field.invalid(path, null, 'must not update from a positive integer to nil value')], stop: false };
  return { errs: [], stop: false };
}

const withoutSeconds = (t: Obj): Obj => {
  const { tolerationSeconds: _ignored, ...rest } = t;
  return rest;
};

/** validateOnlyAddedTolerations: every old toleration is still there, tolerationSeconds aside; one error at most. */
function onlyAddedTolerationErrors(next: Obj[], prev: Obj[]): FieldErrorList {
  const kept = prev.every((old) => next.some((t) => jsonEqual(withoutSeconds(old), withoutSeconds(t))));
  return kept ? [] : [field.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
}

/** validateOnlyDeletedSchedulingGates: a gate may be removed, never added. */
function onlyDeletedGateErrors(next: Obj[], prev: Obj[]): FieldErrorList {
  const old = new Set(prev.map((g) => g.name));
  const errs: FieldErrorList = [];
  next.forEach((g, i) => {
    if (!old.has(g.name)) {
      errs.push(field.forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${String(g.name)}'`));
    }
  });
  return errs;
}

/** The new spec with every field an update may change taken back from the old one, so what remains must be equal. */
function munged(next: Obj, prev: Obj): Obj {
  const copy = jsonClone(next);
  for (const key of ['containers', 'initContainers']) {
    const olds = asList(prev[key]);
    asList(copy[key]).forEach((c, i) => {
      if (olds[i]?.image === undefined) delete c.image;
      else c.image = olds[i].image;
    });
  }
  for (const key of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) {
    if (prev[key] === undefined) delete copy[key];
    else copy[key] = prev[key];
  }
  const oldGrace = prev.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && copy.terminationGracePeriodSeconds === 1) copy.terminationGracePeriodSeconds = oldGrace;
  return copy;
}

/**
 * ValidatePodUpdate's spec half, in its order: container counts and images, activeDeadlineSeconds,
 * tolerations (additions only), schedulingGates (deletions only), then everything else unchanged.
 * kube appends a go-cmp diff of the two specs to the last message; kapi does not (docs/divergences.md).
 */
export function validatePodSpecUpdate(nextSpec: unknown, prevSpec: unknown): FieldErrorList {
  const next = isPlainObject(nextSpec) ? nextSpec : {};
  const prev = isPlainObject(prevSpec) ? prevSpec : {};
  const errs: FieldErrorList = [];
  for (const key of ['containers', 'initContainers']) {
    const r = containerUpdateErrors(asList(next[key]), asList(prev[key]), `spec.${key}`);
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const deadline = activeDeadlineErrors(next.activeDeadlineSeconds, prev.activeDeadlineSeconds);
  errs.push(...deadline.errs);
  if (deadline.stop) return errs;
  errs.push(...onlyAddedTolerationErrors(asList(next.tolerations), asList(prev.tolerations)));
  errs.push(...onlyDeletedGateErrors(asList(next.schedulingGates), asList(prev.schedulingGates)));
  if (!jsonEqual(munged(next, prev), prev)) errs.push(field.forbidden('spec', IMMUTABLE_SPEC_MESSAGE));
  return errs;
}

/** ValidatePodCreate's own rules: ephemeral containers come only through their subresource, and a gated pod is not bound yet. */
export function validatePodSpecCreate(specValue: unknown): FieldErrorList {
  const spec = isPlainObject(specValue) ? specValue : {};
  const errs: FieldErrorList = [];
  if (asList(spec.ephemeralContainers).length > 0) errs.push(field.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '' && asList(spec.schedulingGates).length > 0) {
    errs.push(field.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}
