import { field, type FieldErrorList } from '../api/field-errors';
import type { MutatingAdmissionPolicy } from '../generated/types/admissionregistration/v1';
import { objectOf, objectsIn, stringOf as str, stringsIn } from '../api/json-read';
import { isPlainObject, type KubeObject } from '../api/types';
import { mutatingPolicyVariableNames } from '../admission/policy/compiled-mutation';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { PARAM_KIND_COLUMN, validatePolicySpec, validateVariables } from './validatingadmissionpolicies';
import { defaultMatchResources } from './validatingadmissionpolicies-match';
import { validateExpression, validateMatchConditions } from './webhook-configuration';

/**
 * admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (GA in 1.36): CEL mutations of requests. v1beta1 serves the same
 * objects, stored as v1, when --runtime-config enables it.
 */

const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const MUTATING_OPERATIONS = ['*', 'CREATE', 'UPDATE'];

/** SetDefaults_MutatingAdmissionPolicySpec and the MatchResources defaults. */
function applyDefaults(policy: MutatingAdmissionPolicy): void {
  if (!isPlainObject(policy.spec)) return;
  const spec = policy.spec;
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(spec.matchConstraints);
}

/** validateMutation: a known patchType, the expression it names, not the other one. */
function validateMutation(m: Record<string, unknown>, path: string, vars: string[]): FieldErrorList {
  const patchType = str(m.patchType);
  if (!patchType) return [field.required(`${path}.patchType`)];
  if (!PATCH_TYPES.includes(patchType)) return [field.notSupported(`${path}.patchType`, patchType, PATCH_TYPES)];
  const [own, other] = patchType === 'JSONPatch' ? (['jsonPatch', 'applyConfiguration'] as const) : (['applyConfiguration', 'jsonPatch'] as const);
  const errs: FieldErrorList = [];
  const value = m[own];
  if (!isPlainObject(value)) errs.push(field.required(`${path}.${own}`, `must be specified when patchType is ${patchType}`));
  else errs.push(...validateExpression(str(value.expression).trim(), `${path}.${own}.expression`, vars, { objectConstruction: true }));
  if (m[other] !== undefined && m[other] !== null)
    errs.push(field.invalid(`${path}.${other}`, `{${other}}`, `must not be specified when patchType is ${patchType}`));
  return errs;
}

/** Mutating policies and their bindings match only writes that carry an object (supportedOperationsForMutatingAdmissionPolicy). */
export function validateMutatingOperations(match: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const rule of objectsIn(objectOf(match).resourceRules)) {
    for (const op of stringsIn(rule.operations)) if (!MUTATING_OPERATIONS.includes(op)) errs.push(field.notSupported(path, op, MUTATING_OPERATIONS));
  }
  return errs;
}

/** ValidateMutatingAdmissionPolicy's spec rules. */
export function validateMutatingPolicy(policy: KubeObject): FieldErrorList {
  const spec = objectOf(policy.spec);
  const errs = validatePolicySpec(spec);
  errs.push(...validateMutatingOperations(spec.matchConstraints, 'spec.matchConstraints.resourceRules.operations'));
  const vars = mutatingPolicyVariableNames(isPlainObject(spec.paramKind));
  const mutations = objectsIn(spec.mutations);
  if (mutations.length === 0) errs.push(field.required('spec.mutations', 'mutations must contain at least one item'));
  mutations.forEach((m, i) => errs.push(...validateMutation(m, `spec.mutations[${i}]`, vars)));
  if (!str(spec.reinvocationPolicy)) errs.push(field.required('spec.reinvocationPolicy'));
  else if (!REINVOCATION_POLICIES.includes(str(spec.reinvocationPolicy)))
    errs.push(field.notSupported('spec.reinvocationPolicy', spec.reinvocationPolicy, REINVOCATION_POLICIES));
  errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions', vars));
  errs.push(...validateVariables(spec.variables, 'spec.variables', vars));
  return errs;
}

export const mutatingadmissionpolicies = defineResource<MutatingAdmissionPolicy>({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingadmissionpolicies',
  kind: 'MutatingAdmissionPolicy',
  namespaced: false,
  strategy: strategy<MutatingAdmissionPolicy>({ tracksGeneration: true, applyDefaults, validate: validateMutatingPolicy }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Mutations',
      type: 'integer',
      description: 'Mutations indicates the number of mutations rules defined in this configuration',
      cell: (p) => objectsIn(objectOf(p.spec).mutations).length,
    },
    PARAM_KIND_COLUMN,
    AGE_COLUMN,
  ],
});

export const mutatingadmissionpoliciesV1beta1 = defineResource({
  ...mutatingadmissionpolicies,
  version: 'v1beta1',
  storageApiVersion: 'admissionregistration.k8s.io/v1',
});
