import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn as records, stringsIn as strings } from '../api/json-read';
import { validateLabelSelector } from '../api/meta-validation';
import { nameIsDnsSubdomain, nameIsPathSegment } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { jsonEqual } from '../api/deep-equal';
import { defineResource, type PrinterColumn } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { confirmBindingWrite, confirmRoleWrite } from '../auth/authorizer/escalation';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../generated/types/rbac/v1';

/**
 * rbac.authorization.k8s.io/v1: roles and their bindings, validated and defaulted as kube-apiserver
 * does, with escalation prevention on create and update (auth/authorizer/escalation.ts); the RBAC
 * authorizer reads them (auth/authorizer/rbac.ts).
 */

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** ValidatePolicyRule: a rule names verbs and either resources (with groups) or non-resource URLs. */
function validatePolicyRule(rule: Record<string, unknown>, namespaced: boolean, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (strings(rule.verbs).length === 0) errs.push(field.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const nonResourceURLs = strings(rule.nonResourceURLs);
  if (nonResourceURLs.length > 0) {
    if (namespaced) errs.push(field.invalid(`${path}.nonResourceURLs`, nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (strings(rule.apiGroups).length > 0 || strings(rule.resources).length > 0 || strings(rule.resourceNames).length > 0) {
      errs.push(field.invalid(`${path}.nonResourceURLs`, nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (strings(rule.apiGroups).length === 0) errs.push(field.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (strings(rule.resources).length === 0) errs.push(field.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): FieldErrorList {
  return records(obj.rules).flatMap((rule, i) => validatePolicyRule(rule, namespaced, `rules[${i}]`));
}

function validateAggregationRule(role: KubeObject): FieldErrorList {
  if (!isPlainObject(role.aggregationRule)) return [];
  const selectors = records(role.aggregationRule.clusterRoleSelectors);
  const path = 'aggregationRule.clusterRoleSelectors';
  if (selectors.length === 0) return [field.required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  return selectors.flatMap((selector, i) => validateLabelSelector(selector, `${path}[${i}]`));
}

/** SetDefaults_Subject: users and groups belong to the RBAC group (service accounts to the core group, ""). */
function defaultSubjects(binding: KubeObject): void {
  for (const subject of records(binding.subjects)) {
    if (!subject.apiGroup && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = RBAC_GROUP;
  }
}

/**
 * SetDefaults_RoleBinding and SetDefaults_ClusterRoleBinding. roleRef is a struct, not a pointer,
 * in Go: a binding without one has an empty reference, defaulted and then refused field by field.
 */
function defaultBinding(binding: KubeObject): void {
  if (!isPlainObject(binding.roleRef)) binding.roleRef = { apiGroup: '', kind: '', name: '' };
  const ref = binding.roleRef as Record<string, unknown>;
  if (!ref.apiGroup) ref.apiGroup = RBAC_GROUP;
  defaultSubjects(binding);
}

/** ValidateRoleBindingSubject. */
function validateSubject(subject: Record<string, unknown>, namespaced: boolean, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const name = typeof subject.name === 'string' ? subject.name : '';
  const apiGroup = typeof subject.apiGroup === 'string' ? subject.apiGroup : '';
  if (!name) errs.push(field.required(`${path}.name`));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name) for (const msg of nameIsDnsSubdomain(name, false)) errs.push(field.invalid(`${path}.name`, name, msg));
      if (apiGroup) errs.push(field.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && !subject.namespace) errs.push(field.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(field.notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(field.notSupported(`${path}.kind`, subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** ValidateRoleBinding / ValidateClusterRoleBinding: the role reference, then each subject. */
function validateBinding(binding: KubeObject, namespaced: boolean): FieldErrorList {
  const errs: FieldErrorList = [];
  const ref = isPlainObject(binding.roleRef) ? binding.roleRef : {};
  const apiGroup = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
  if (apiGroup !== RBAC_GROUP) errs.push(field.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind as string)) errs.push(field.notSupported('roleRef.kind', ref.kind ?? '', kinds));
  const name = typeof ref.name === 'string' ? ref.name : '';
  if (!name) errs.push(field.required('roleRef.name'));
  else for (const msg of nameIsPathSegment(name, false)) errs.push(field.invalid('roleRef.name', name, msg));
  records(binding.subjects).forEach((subject, i) => errs.push(...validateSubject(subject, namespaced, `subjects[${i}]`)));
  return errs;
}

function validateRoleRefUnchanged(next: KubeObject, prev: KubeObject): FieldErrorList {
  return jsonEqual(next.roleRef, prev.roleRef) ? [] : [field.invalid('roleRef', next.roleRef, 'cannot change roleRef')];
}

function subjectNames(binding: KubeObject, kind: string): string {
  return records(binding.subjects)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${(s.namespace as string) ?? ''}/${s.name as string}` : (s.name as string)))
    .join(', ');
}

function bindingColumns(roleRefDescription: string): PrinterColumn[] {
  return [
    NAME_COLUMN,
    {
      name: 'Role',
      type: 'string',
      description: roleRefDescription,
      cell: (b) => (isPlainObject(b.roleRef) ? `${b.roleRef.kind as string}/${b.roleRef.name as string}` : '/'),
    },
    AGE_COLUMN,
    { name: 'Users', type: 'string', priority: 1, description: 'Users in the roleBinding', cell: (b) => subjectNames(b, 'User') },
    { name: 'Groups', type: 'string', priority: 1, description: 'Groups in the roleBinding', cell: (b) => subjectNames(b, 'Group') },
    { name: 'ServiceAccounts', type: 'string', priority: 1, description: 'ServiceAccounts in the roleBinding', cell: (b) => subjectNames(b, 'ServiceAccount') },
  ];
}

/** RBAC names are path segments only (ValidateRBACName), so "system:controller:x" is a valid name. */
const rbacStrategy = { validateName: nameIsPathSegment, allowCreateOnUpdate: true };

export const roles = defineResource<Role>({
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'roles',
  kind: 'Role',
  namespaced: true,
  strategy: strategy<Role>({
    ...rbacStrategy,
    validate: (role) => validateRules(role, true),
    validateCreate: (role, ctx) => (confirmRoleWrite(ctx, 'roles', role, null), []),
    validateUpdate: (role, prev, ctx) => (confirmRoleWrite(ctx, 'roles', role, prev), []),
  }),
});

export const clusterroles = defineResource<ClusterRole>({
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
  strategy: strategy<ClusterRole>({
    ...rbacStrategy,
    validate: (role) => [...validateRules(role, false), ...validateAggregationRule(role)],
    validateCreate: (role, ctx) => (confirmRoleWrite(ctx, 'clusterroles', role, null), []),
    validateUpdate: (role, prev, ctx) => (confirmRoleWrite(ctx, 'clusterroles', role, prev), []),
  }),
});

export const rolebindings = defineResource<RoleBinding>({
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'rolebindings',
  kind: 'RoleBinding',
  namespaced: true,
  strategy: strategy<RoleBinding>({
    ...rbacStrategy,
    applyDefaults: defaultBinding,
    validate: (binding) => validateBinding(binding, true),
    validateCreate: (binding, ctx) => (confirmBindingWrite(ctx, 'rolebindings', binding, null), []),
    validateUpdate: (binding, prev, ctx) => (confirmBindingWrite(ctx, 'rolebindings', binding, prev), validateRoleRefUnchanged(binding, prev)),
  }),
  printerColumns: bindingColumns(
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ),
});

export const clusterrolebindings = defineResource<ClusterRoleBinding>({
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
  namespaced: false,
  strategy: strategy<ClusterRoleBinding>({
    ...rbacStrategy,
    applyDefaults: defaultBinding,
    validate: (binding) => validateBinding(binding, false),
    validateCreate: (binding, ctx) => (confirmBindingWrite(ctx, 'clusterrolebindings', binding, null), []),
    validateUpdate: (binding, prev, ctx) => (confirmBindingWrite(ctx, 'clusterrolebindings', binding, prev), validateRoleRefUnchanged(binding, prev)),
  }),
  printerColumns: bindingColumns(
    'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ),
});
