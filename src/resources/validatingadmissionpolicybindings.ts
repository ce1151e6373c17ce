import { field, type FieldErrorList } from '../api/field-errors';
import type { ValidatingAdmissionPolicyBinding } from '../generated/types/admissionregistration/v1';
import { objectOf, stringOf as str, stringsIn } from '../api/json-read';
import { validateLabelSelector } from '../api/meta-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource, type PrinterColumn } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { defaultMatchResources, validateMatchResources } from './validatingadmissionpolicies-match';

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding: where a policy applies, with which params and actions. */

const ACTIONS = ['Audit', 'Deny', 'Warn'];
const NOT_FOUND_ACTIONS = ['Deny', 'Allow'];

/** ValidatePathSegmentName: a name that can be a URL path segment. */
function pathSegmentErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  for (const bad of ['/', '%']) if (name.includes(bad)) return [`may not contain '${bad}'`];
  return [];
}

/** validateParamRef: name or selector (not both), a valid namespace, a parameterNotFoundAction. */
export function validateParamRef(ref: unknown, path: string): FieldErrorList {
  if (!isPlainObject(ref)) return [];
  const errs: FieldErrorList = [];
  const name = str(ref.name);
  if (name) {
    for (const msg of pathSegmentErrors(name)) errs.push(field.invalid(`${path}.name`, name, msg));
    if (ref.selector !== undefined && ref.selector !== null) errs.push(field.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (isPlainObject(ref.selector)) errs.push(...validateLabelSelector(ref.selector as never, `${path}.selector`));
  if (!name && !isPlainObject(ref.selector)) errs.push(field.required(path, 'one of name or selector must be specified'));
  const namespace = str(ref.namespace);
  for (const msg of namespace ? pathSegmentErrors(namespace) : []) errs.push(field.invalid(`${path}.namespace`, namespace, msg));
  if (!str(ref.parameterNotFoundAction)) errs.push(field.required(`${path}.parameterNotFoundAction`));
  else if (!NOT_FOUND_ACTIONS.includes(str(ref.parameterNotFoundAction)))
    errs.push(field.notSupported(`${path}.parameterNotFoundAction`, ref.parameterNotFoundAction, NOT_FOUND_ACTIONS));
  return errs;
}

/** validateValidationActions: known, unique, at least one, not both Deny and Warn. */
function validateActions(value: unknown, path: string): FieldErrorList {
  const actions = stringsIn(value);
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!ACTIONS.includes(action)) errs.push(field.notSupported(`${path}[${i}]`, action, ACTIONS));
    if (seen.has(action)) errs.push(field.duplicate(`${path}[${i}]`, action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(
      field.invalid(
        path,
        actions,
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0) errs.push(field.required(path, 'at least one validation action is required'));
  return errs;
}

/** ValidateValidatingAdmissionPolicyBinding's spec rules. */
export function validateBinding(binding: KubeObject): FieldErrorList {
  const spec = objectOf(binding.spec);
  const errs: FieldErrorList = [];
  if (!str(spec.policyName)) errs.push(field.required('spec.policyName'));
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResources', false));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  errs.push(...validateActions(spec.validationActions, 'spec.validationActions'));
  return errs;
}

/** metav1.LabelSelector's Go String(), as the ParamRef column prints a selector. */
function selectorGoString(selector: Record<string, unknown>): string {
  const labels = objectOf(selector.matchLabels);
  const keys = Object.keys(labels).sort();
  const matchLabels = `map[string]string{${keys.map((k) => `${k}: ${str(labels[k])},`).join('')}}`;
  const expressions = (Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [])
    .map((e: Record<string, unknown>) => `LabelSelectorRequirement{Key:${str(e.key)},Operator:${str(e.operator)},Values:[${stringsIn(e.values).join(' ')}],}`)
    .join(',');
  return `&LabelSelector{MatchLabels:${matchLabels},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

/** printValidatingAdmissionPolicyBinding's ParamRef cell. */
function paramRefCell(binding: ValidatingAdmissionPolicyBinding): string {
  const ref = objectOf(binding.spec).paramRef;
  if (!isPlainObject(ref)) return '<unset>';
  if (str(ref.name)) return str(ref.namespace) ? `${str(ref.namespace)}/${str(ref.name)}` : `*/${str(ref.name)}`;
  return isPlainObject(ref.selector) ? selectorGoString(ref.selector) : '<unset>';
}

/** kubectl's columns of both kinds of policy binding (printValidatingAdmissionPolicyBinding, printMutatingAdmissionPolicyBinding). */
export const POLICY_BINDING_COLUMNS: PrinterColumn[] = [
  NAME_COLUMN,
  {
    name: 'PolicyName',
    type: 'string',
    description: 'PolicyName indicates the policy definition which the policy binding binded to',
    cell: (b) => str(objectOf(b.spec).policyName),
  },
  { name: 'ParamRef', type: 'string', description: 'ParamRef indicates the param resource which sets the configration param', cell: paramRefCell },
  AGE_COLUMN,
];

export const validatingadmissionpolicybindings = defineResource<ValidatingAdmissionPolicyBinding>({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingadmissionpolicybindings',
  kind: 'ValidatingAdmissionPolicyBinding',
  namespaced: false,
  categories: ['api-extensions'],
  strategy: strategy<ValidatingAdmissionPolicyBinding>({
    tracksGeneration: true,
    applyDefaults: (binding) => defaultMatchResources(objectOf(binding.spec).matchResources),
    validate: validateBinding,
  }),
  printerColumns: POLICY_BINDING_COLUMNS,
});
