import { field, type FieldErrorList } from './field-errors';
import { isDns1123Label, isQualifiedName, isValidLabelValue, type NameValidator } from './name-validation';
import type { ObjectMeta } from './types';

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

export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(field.invalid(path, key, msg));
    size += key.length + value.length;
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(field.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function validateFinalizers(finalizers: string[] | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const finalizer of finalizers ?? []) {
    const msgs = isQualifiedName(finalizer);
    for (const msg of msgs) errs.push(field.invalid(path, finalizer, msg));
    if (msgs.length === 0 && !finalizer.includes('/') && !STANDARD_FINALIZERS.has(finalizer)) {
      errs.push(field.invalid(path, finalizer, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
  if (finalizers?.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(field.invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

function validateOwnerReferences(meta: ObjectMeta, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const controllers: string[] = [];
  for (const ref of meta.ownerReferences ?? []) {
    if (!ref.apiVersion) errs.push(field.invalid(`${path}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(field.invalid(`${path}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(field.invalid(`${path}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(field.invalid(`${path}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (ref.controller) controllers.push(`${ref.kind}/${ref.name}`);
  }
  if (controllers.length > 1) {
    errs.push(
      field.invalid(
        path,
        meta.ownerReferences,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  }
  return errs;
}

export interface MetaRules {
  namespaced: boolean;
  validateName: NameValidator;
}

/** ValidateObjectMeta: the checks common to every object on create. */
export function validateObjectMeta(meta: ObjectMeta, rules: MetaRules, path = 'metadata'): FieldErrorList {
  const errs: FieldErrorList = [];
  if (meta.generateName && !meta.name) {
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
  return errs;
}

function immutable(errs: FieldErrorList, path: string, next: unknown, prev: unknown): void {
  if ((next ?? undefined) !== (prev ?? undefined)) errs.push(field.invalid(path, next ?? null, 'field is immutable'));
}

/** ValidateObjectMetaUpdate: what no update may change. */
export function validateObjectMetaUpdate(next: ObjectMeta, prev: ObjectMeta, path = 'metadata'): FieldErrorList {
  const errs: FieldErrorList = [];
  if (prev.deletionTimestamp) {
    const added = (next.finalizers ?? []).filter((f) => !(prev.finalizers ?? []).includes(f));
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
  immutable(errs, `${path}.name`, next.name, prev.name);
  immutable(errs, `${path}.namespace`, next.namespace, prev.namespace);
  immutable(errs, `${path}.uid`, next.uid, prev.uid);
  immutable(errs, `${path}.creationTimestamp`, next.creationTimestamp, prev.creationTimestamp);
  immutable(errs, `${path}.deletionTimestamp`, next.deletionTimestamp, prev.deletionTimestamp);
  immutable(errs, `${path}.deletionGracePeriodSeconds`, next.deletionGracePeriodSeconds, prev.deletionGracePeriodSeconds);
  errs.push(...validateLabels(next.labels, `${path}.labels`));
  errs.push(...validateAnnotations(next.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(next, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(next.finalizers, `${path}.finalizers`));
  return errs;
}
