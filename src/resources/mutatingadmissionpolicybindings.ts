import { field, type FieldErrorList } from '../api/field-errors';
import type { MutatingAdmissionPolicyBinding } from '../generated/types/admissionregistration/v1';
import { objectOf, stringOf as str } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { validateMutatingOperations } from './mutatingadmissionpolicies';
import { defaultMatchResources, validateMatchResources } from './validatingadmissionpolicies-match';
import { POLICY_BINDING_COLUMNS, validateParamRef } from './validatingadmissionpolicybindings';

/** admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding (v1beta1 too, stored as v1): where a mutating policy applies, and with which params. */

/** ValidateMutatingAdmissionPolicyBinding's spec rules. */
export function validateMutatingBinding(binding: KubeObject): FieldErrorList {
  const spec = objectOf(binding.spec);
  const errs: FieldErrorList = [];
  if (!str(spec.policyName)) errs.push(field.required('spec.policyName'));
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResources', false));
  errs.push(...validateMutatingOperations(spec.matchResources, 'spec.matchResources.resourceRules.operations'));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  return errs;
}

export const mutatingadmissionpolicybindings = defineResource<MutatingAdmissionPolicyBinding>({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingadmissionpolicybindings',
  kind: 'MutatingAdmissionPolicyBinding',
  namespaced: false,
  strategy: strategy<MutatingAdmissionPolicyBinding>({
    tracksGeneration: true,
    applyDefaults: (binding) => defaultMatchResources(objectOf(binding.spec).matchResources),
    validate: validateMutatingBinding,
  }),
  printerColumns: POLICY_BINDING_COLUMNS,
});

export const mutatingadmissionpolicybindingsV1beta1 = defineResource({
  ...mutatingadmissionpolicybindings,
  version: 'v1beta1',
  storageApiVersion: 'admissionregistration.k8s.io/v1',
});
