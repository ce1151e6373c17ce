import { field, type FieldErrorList } from './field-errors';
import { isDns1123Label, isQualifiedName, isValidLabelValue, type NameValidator } from './name-validation';
import { parseApiVersion, type ObjectMeta } from './types';

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(key)) errs.push(field.invalid(path, key, msg));
    for (const msg of isValidLabelValue(value)) errs.push(field.invalid(path, value, msg));
  }
  return errs;
}

interface SelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

/** metav1validation.ValidateLabelSelector: matchLabels as labels, each matchExpressions requirement well-formed. */
export function validateLabelSelector(
  selector: { matchLabels?: Record<string, string>; matchExpressions?: SelectorRequirement[] },
  path: string,
): FieldErrorList {
  const errs = validateLabels(selector.matchLabels, `${path}.matchLabels`);
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(field.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(field.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(field.invalid(`${at}.operator`, req.operator ?? '', 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(req.key ?? '')) errs.push(field.invalid(`${at}.key`, req.key ?? '', msg));
    values.forEach((value, j) => {
      for (const msg of isValidLabelValue(value)) errs.push(field.invalid(`${at}.values[${j}]`, value, msg));
    });
  });
  return errs;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(field.invalid(path, key, msg));
    size += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(field.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** apimachinery's ValidateFinalizers: qualified names, and not both orphan and foregroundDeletion. */
function validateFinalizers(finalizers: string[] | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const finalizer of finalizers ?? []) {
    for (const msg of isQualifiedName(finalizer)) errs.push(field.invalid(path, finalizer, msg));
  }
  if (finalizers?.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(field.invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** core/validation's validateKubeFinalizerName, run on create and update for every built-in kind. */
function validateKubeFinalizerNames(finalizers: string[] | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  (finalizers ?? []).forEach((finalizer, i) => {
    if (!finalizer.includes('/') && !STANDARD_FINALIZERS.has(finalizer)) {
      errs.push(field.invalid(`${path}[${i}]`, finalizer, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

function validateOwnerReferences(meta: ObjectMeta, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  let firstController = '';
  for (const ref of meta.ownerReferences ?? []) {
    const gv = parseApiVersion(ref.apiVersion ?? '');
    if (!gv.version) errs.push(field.invalid(`${path}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(field.invalid(`${path}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(field.invalid(`${path}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(field.invalid(`${path}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && ref.kind === 'Event') {
      errs.push(field.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          field.invalid(
            path,
            meta.ownerReferences,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

export interface MetaRules {
  namespaced: boolean;
  validateName: NameValidator;
  /** core/validation's ValidateObjectMeta (every built-in kind but CRDs): finalizers without a domain must be standard ones. */
  kubeFinalizerNames: boolean;
}

/** ValidateObjectMeta: the checks common to every object on create. */
export function validateObjectMeta(meta: ObjectMeta, rules: MetaRules, path = 'metadata'): FieldErrorList {
  const errs: FieldErrorList = [];
  // The name has been generated by now; generateName is still validated on its own.
  if (meta.generateName) {
    for (const msg of rules.validateName(meta.generateName, true)) errs.push(field.invalid(`${path}.generateName`, meta.generateName, msg));
  }
  if (!meta.name) {
    errs.push(field.required(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const msg of rules.validateName(meta.name, false)) errs.push(field.invalid(`${path}.name`, meta.name, msg));
  }
  if (rules.namespaced) {
    if (!meta.namespace) errs.push(field.required(`${path}.namespace`));
    else for (const msg of isDns1123Label(meta.namespace)) errs.push(field.invalid(`${path}.namespace`, meta.namespace, msg));
  } else if (meta.namespace) {
    errs.push(field.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  if (meta.generation !== undefined && meta.generation < 0) {
    errs.push(field.invalid(`${path}.generation`, meta.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(meta.finalizers, `${path}.finalizers`));
  if (rules.kubeFinalizerNames) errs.push(...validateKubeFinalizerNames(meta.finalizers, `${path}.finalizers`));
  return errs;
}

/** ValidateImmutableField; `zero` is what Go reports for an unset field ("" for strings, null for pointers). */
function immutable(errs: FieldErrorList, path: string, next: unknown, prev: unknown, zero: unknown = null): void {
  if ((next ?? zero) !== (prev ?? zero)) errs.push(field.invalid(path, next ?? zero, 'field is immutable'));
}

/** ValidateObjectMetaUpdate: what no update may change. */
export function validateObjectMetaUpdate(next: ObjectMeta, prev: ObjectMeta, kubeFinalizerNames: boolean, path = 'metadata'): FieldErrorList {
  const errs: FieldErrorList = [];
  if (prev.deletionTimestamp) {
    // sets.NewString(...).Difference(...).List(): unique and sorted.
    const added = [...new Set((next.finalizers ?? []).filter((f) => !(prev.finalizers ?? []).includes(f)))].sort();
    if (added.length > 0) {
      errs.push(
        field.forbidden(
          `${path}.finalizers`,
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  if (!next.resourceVersion) errs.push(field.invalid(`${path}.resourceVersion`, next.resourceVersion ?? '', 'must be specified for an update'));
  if ((next.generation ?? 0) < (prev.generation ?? 0)) {
    errs.push(field.invalid(`${path}.generation`, next.generation ?? 0, 'must not be decremented'));
  }
  immutable(errs, `${path}.name`, next.name, prev.name, '');
  immutable(errs, `${path}.namespace`, next.namespace, prev.namespace, '');
  immutable(errs, `${path}.uid`, next.uid, prev.uid, '');
  immutable(errs, `${path}.creationTimestamp`, next.creationTimestamp, prev.creationTimestamp);
  immutable(errs, `${path}.deletionTimestamp`, next.deletionTimestamp, prev.deletionTimestamp);
  immutable(errs, `${path}.deletionGracePeriodSeconds`, next.deletionGracePeriodSeconds, prev.deletionGracePeriodSeconds);
  errs.push(...validateLabels(next.labels, `${path}.labels`));
  errs.push(...validateAnnotations(next.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(next, `${path}.ownerReferences`));
  if (kubeFinalizerNames) errs.push(...validateKubeFinalizerNames(next.finalizers, `${path}.finalizers`));
  return errs;
}
