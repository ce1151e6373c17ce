import { field, type FieldErrorList } from '../api/field-errors';
import type { ValidatingAdmissionPolicy } from '../generated/types/admissionregistration/v1';
import { objectOf, objectsIn, stringOf as str } from '../api/json-read';
import { isQualifiedName } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { policyVariableNames } from '../admission/policy/compiled-policy';
import { defineResource, type PrinterColumn } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { defaultMatchResources, validateMatchResources } from './validatingadmissionpolicies-match';
import { validateExpression, validateMatchConditions } from './webhook-configuration';

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy: CEL validations of requests, with a status the type checker writes. */

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** SetDefaults_ValidatingAdmissionPolicySpec. */
function applyDefaults(policy: ValidatingAdmissionPolicy): void {
  const spec = objectOf(policy.spec);
  if (!isPlainObject(policy.spec)) return;
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(spec.matchConstraints);
}

/** validateParamKind: apiVersion and kind, both required. */
export function validateParamKind(value: unknown, path: string): FieldErrorList {
  if (!isPlainObject(value)) return [];
  const errs: FieldErrorList = [];
  const apiVersion = str(value.apiVersion);
  if (!apiVersion) errs.push(field.required(`${path}.apiVersion`));
  else if (apiVersion.split('/').length > 2 || apiVersion.split('/').some((part) => !part))
    errs.push(field.invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  if (!str(value.kind)) errs.push(field.required(`${path}.kind`));
  return errs;
}

/** validateValidation: an expression, a one-line non-empty message, a known reason, a messageExpression that compiles. */
function validateValidation(v: Record<string, unknown>, path: string, vars: string[]): FieldErrorList {
  const errs = validateExpression(str(v.expression), `${path}.expression`, vars);
  if (typeof v.message === 'string') {
    if (v.message.includes('\n')) errs.push(field.invalid(`${path}.message`, v.message, 'message must not contain line breaks'));
    else if (!v.message.trim()) errs.push(field.required(`${path}.message`, 'message must be non-empty if specified'));
  }
  if (v.reason !== undefined && !REASONS.includes(str(v.reason))) errs.push(field.notSupported(`${path}.reason`, v.reason, REASONS));
  if (v.messageExpression !== undefined) {
    if (!str(v.messageExpression).trim()) errs.push(field.required(`${path}.messageExpression`, 'must be non-empty if specified'));
    else errs.push(...validateExpression(str(v.messageExpression), `${path}.messageExpression`, vars));
  }
  return errs;
}

/** validateAuditAnnotation: `<policy name>/<key>` must be a qualified name, keys unique, a valueExpression that compiles. */
function validateAuditAnnotations(policy: ValidatingAdmissionPolicy, path: string, vars: string[]): FieldErrorList {
  const errs: FieldErrorList = [];
  const keys = new Set<string>();
  objectsIn(objectOf(policy.spec).auditAnnotations).forEach((a, i) => {
    const key = str(a.key);
    if (!key) errs.push(field.required(`${path}[${i}].key`));
    else {
      const qualified = `${policy.metadata.name ?? ''}/${key}`;
      for (const msg of isQualifiedName(qualified)) errs.push(field.invalid(`${path}[${i}].key`, key, msg));
      if (keys.has(key)) errs.push(field.duplicate(`${path}[${i}].key`, key));
    }
    keys.add(key);
    errs.push(...validateExpression(str(a.valueExpression), `${path}[${i}].valueExpression`, vars));
  });
  return errs;
}

/** validateVariable: a CEL identifier as name, unique, and an expression that compiles. */
export function validateVariables(value: unknown, path: string, vars: string[]): FieldErrorList {
  const errs: FieldErrorList = [];
  const names = new Set<string>();
  objectsIn(value).forEach((v, i) => {
    const name = str(v.name);
    if (!name) errs.push(field.required(`${path}[${i}].name`));
    else if (!CEL_IDENTIFIER.test(name)) errs.push(field.invalid(`${path}[${i}].name`, name, 'name is not a valid CEL identifier'));
    if (name && names.has(name)) errs.push(field.duplicate(`${path}[${i}].name`, name));
    names.add(name);
    errs.push(...validateExpression(str(v.expression), `${path}[${i}].expression`, vars));
  });
  return errs;
}

/** What both kinds of admission policy require of their spec: a failure policy, a valid paramKind and matchConstraints. */
export function validatePolicySpec(spec: Record<string, unknown>): FieldErrorList {
  const errs: FieldErrorList = [];
  if (spec.failurePolicy === undefined) errs.push(field.required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(str(spec.failurePolicy))) errs.push(field.notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  errs.push(...validateParamKind(spec.paramKind, 'spec.paramKind'));
  errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints', true));
  return errs;
}

/** ValidateValidatingAdmissionPolicy's spec rules. */
export function validatePolicy(policy: KubeObject): FieldErrorList {
  const spec = objectOf(policy.spec);
  const errs = validatePolicySpec(spec);
  const validations = objectsIn(spec.validations);
  const auditAnnotations = objectsIn(spec.auditAnnotations);
  if (validations.length === 0 && auditAnnotations.length === 0)
    errs.push(field.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  const vars = policyVariableNames(isPlainObject(spec.paramKind));
  validations.forEach((v, i) => errs.push(...validateValidation(v, `spec.validations[${i}]`, vars)));
  errs.push(...validateAuditAnnotations(policy, 'spec.auditAnnotations', vars));
  errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions', vars));
  errs.push(...validateVariables(spec.variables, 'spec.variables', vars));
  return errs;
}

/** The ParamKind column both admission policy kinds print (`<apiVersion>/<kind>`, or `<unset>`). */
export const PARAM_KIND_COLUMN: PrinterColumn = {
  name: 'ParamKind',
  type: 'string',
  description: 'ParamKind specifies the kind of resources used to parameterize this policy',
  cell: (p) => {
    const kind = objectOf(p.spec).paramKind;
    return isPlainObject(kind) ? `${str(kind.apiVersion)}/${str(kind.kind)}` : '<unset>';
  },
};

export const validatingadmissionpolicies = defineResource<ValidatingAdmissionPolicy>({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
  subresources: ['status'],
  categories: ['api-extensions'],
  strategy: strategy<ValidatingAdmissionPolicy>({
    tracksGeneration: true,
    prepareForCreate: (policy) => {
      delete policy.status;
    },
    applyDefaults,
    validate: validatePolicy,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Validations',
      type: 'integer',
      description: 'Validations indicates the number of validation rules defined in this configuration',
      cell: (p) => objectsIn(objectOf(p.spec).validations).length,
    },
    PARAM_KIND_COLUMN,
    AGE_COLUMN,
  ],
});
