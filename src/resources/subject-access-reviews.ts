import { badRequest, invalid } from '../api/errors';
import { field, type FieldErrorList } from '../api/field-errors';
import { isPlainObject, type KubeObject, type ObjectMeta } from '../api/types';
import { defineComputedResource } from '../registry/resource-definition';
import { resourceAttributes, nonResourceAttributes, type AuthorizationAttributes } from '../auth/authorizer/attributes';
import type { UserInfo } from '../auth/user';
import type { RequestContext } from '../registry/request-context';

/**
 * SubjectAccessReview, SelfSubjectAccessReview and LocalSubjectAccessReview: validated as
 * kube-apiserver's pkg/apis/authorization/validation does, then answered by the server's own
 * authorizer (pkg/registry/authorization). The answer is the request with its status filled in.
 */

const GROUP = 'authorization.k8s.io';
/** kube-apiserver validates the internal object, whose kind is empty: errors read `.authorization.k8s.io "" is invalid`. */
const INTERNAL_KIND = { group: GROUP, kind: '' };

type Spec = Record<string, unknown>;

function specOf(review: KubeObject): Spec {
  return isPlainObject(review.spec) ? review.spec : {};
}

/** Go's nil: an absent field or a JSON null. */
const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** apiequality.Semantic.DeepEqual treats nil and empty alike. */
function isEmptyValue(v: unknown): boolean {
  if (!isSet(v) || v === '' || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

/** Whether metadata is ObjectMeta{} once the fields kube-apiserver's validation clears are left out. */
function metadataIsEmpty(meta: ObjectMeta, ignored: string[]): boolean {
  return Object.entries(meta).every(([k, v]) => k === 'managedFields' || ignored.includes(k) || isEmptyValue(v));
}

function validateSelector(selector: unknown, path: string): FieldErrorList {
  if (!isPlainObject(selector)) return [];
  const raw = typeof selector.rawSelector === 'string' ? selector.rawSelector : '';
  const requirements = Array.isArray(selector.requirements) ? selector.requirements : [];
  const errs: FieldErrorList = [];
  if (raw && requirements.length > 0) errs.push(field.invalid(`${path}.rawSelector`, raw, 'may not specified at the same time as requirements'));
  if (!raw && requirements.length === 0)
    errs.push(field.required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  return errs;
}

function validateResourceAttributes(spec: Spec): FieldErrorList {
  const attrs = spec.resourceAttributes;
  if (!isPlainObject(attrs)) return [];
  return [
    ...validateSelector(attrs.fieldSelector, 'spec.resourceAttributes.fieldSelector'),
    ...validateSelector(attrs.labelSelector, 'spec.resourceAttributes.labelSelector'),
  ];
}

/** ValidateSelfSubjectAccessReviewSpec: exactly one of resourceAttributes and nonResourceAttributes. */
export function validateAttributes(spec: Spec): FieldErrorList {
  const errs: FieldErrorList = [];
  const resource = isSet(spec.resourceAttributes);
  const nonResource = isSet(spec.nonResourceAttributes);
  if (resource && nonResource) {
    errs.push(field.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  }
  if (!resource && !nonResource) {
    errs.push(field.invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  return errs;
}

/** ValidateSubjectAccessReviewSpec: the attributes, and someone to ask about. */
export function validateSubjectSpec(spec: Spec): FieldErrorList {
  const errs = validateAttributes(spec);
  const user = typeof spec.user === 'string' ? spec.user : '';
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  if (!user && groups.length === 0) errs.push(field.invalid('spec.user', user, 'at least one of user or group must be specified'));
  return [...errs, ...validateResourceAttributes(spec)];
}

export function validateSelfSubjectAccessReview(review: KubeObject): FieldErrorList {
  const errs = [...validateAttributes(specOf(review)), ...validateResourceAttributes(specOf(review))];
  if (!metadataIsEmpty(review.metadata, [])) errs.push(field.invalid('metadata', review.metadata, 'must be empty'));
  return errs;
}

export function validateSubjectAccessReview(review: KubeObject): FieldErrorList {
  const errs = validateSubjectSpec(specOf(review));
  if (!metadataIsEmpty(review.metadata, [])) errs.push(field.invalid('metadata', review.metadata, 'must be empty'));
  return errs;
}

export function validateLocalSubjectAccessReview(review: KubeObject): FieldErrorList {
  const spec = specOf(review);
  const errs = validateSubjectSpec(spec);
  if (!metadataIsEmpty(review.metadata, ['namespace'])) errs.push(field.invalid('metadata', review.metadata, 'must be empty except for namespace'));
  const attrs = spec.resourceAttributes;
  if (isPlainObject(attrs)) {
    const namespace = typeof attrs.namespace === 'string' ? attrs.namespace : '';
    if (namespace !== (review.metadata.namespace ?? ''))
      errs.push(field.invalid('spec.resourceAttributes.namespace', namespace, 'must match metadata.namespace'));
  }
  if (isSet(spec.nonResourceAttributes))
    errs.push(field.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
  return errs;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The user a review asks about: spec.user, groups, uid and extra (SubjectAccessReview). */
function specUser(spec: Spec): UserInfo {
  const extra: Record<string, string[]> = {};
  if (isPlainObject(spec.extra)) {
    for (const [k, v] of Object.entries(spec.extra)) extra[k] = Array.isArray(v) ? v.map(String) : [];
  }
  return { name: str(spec.user), uid: str(spec.uid), groups: Array.isArray(spec.groups) ? spec.groups.map(String) : [], extra };
}

/** ResourceAttributesFrom / NonResourceAttributesFrom of pkg/registry/authorization/util. */
function reviewAttributes(user: UserInfo, spec: Spec): AuthorizationAttributes {
  if (isPlainObject(spec.resourceAttributes)) {
    const a = spec.resourceAttributes;
    return resourceAttributes(user, str(a.verb), {
      apiGroup: str(a.group),
      apiVersion: str(a.version),
      namespace: str(a.namespace),
      resource: str(a.resource),
      subresource: str(a.subresource),
      name: str(a.name),
    });
  }
  const n = isPlainObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return nonResourceAttributes(user, str(n.verb), str(n.path));
}

/** The review answered by the authorizer: allowed, denied, the reason and any evaluation error. */
function answered(ctx: RequestContext, review: KubeObject, user: UserInfo): KubeObject {
  const result = ctx.authorizer.authorize(reviewAttributes(user, specOf(review)));
  const status: Record<string, unknown> = { allowed: result.decision === 'Allow' };
  if (result.decision === 'Deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  if (result.error) status.evaluationError = result.error;
  return { ...review, status };
}

function checked(review: KubeObject, validate: (r: KubeObject) => FieldErrorList): KubeObject {
  const errs = validate(review);
  if (errs.length > 0) throw invalid(INTERNAL_KIND, '', errs);
  return review;
}

export const selfsubjectaccessreviews = defineComputedResource({
  group: GROUP,
  version: 'v1',
  resource: 'selfsubjectaccessreviews',
  kind: 'SelfSubjectAccessReview',
  namespaced: false,
  compute: async ({ ctx, object }) => answered(ctx, checked(object, validateSelfSubjectAccessReview), ctx.user),
});

export const subjectaccessreviews = defineComputedResource({
  group: GROUP,
  version: 'v1',
  resource: 'subjectaccessreviews',
  kind: 'SubjectAccessReview',
  namespaced: false,
  compute: async ({ ctx, object }) => answered(ctx, checked(object, validateSubjectAccessReview), specUser(specOf(object))),
});

export const localsubjectaccessreviews = defineComputedResource({
  group: GROUP,
  version: 'v1',
  resource: 'localsubjectaccessreviews',
  kind: 'LocalSubjectAccessReview',
  namespaced: true,
  compute: async ({ ctx, namespace, object }) => {
    checked(object, validateLocalSubjectAccessReview);
    if (object.metadata.namespace !== namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
    return answered(ctx, object, specUser(specOf(object)));
  },
});
