import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn, stringOf as str, stringsIn } from '../api/json-read';
import { validateLabelSelector } from '../api/meta-validation';
import { isPlainObject } from '../api/types';
import { validateRule } from './webhook-configuration';

/** What admissionregistration.k8s.io/v1's policies and their bindings share: MatchResources. */

type Obj = Record<string, unknown>;

const MATCH_POLICIES = ['Equivalent', 'Exact'];

/** SetDefaults_MatchResources and SetDefaults_NamedRuleWithOperations. */
export function defaultMatchResources(match: unknown): void {
  if (!isPlainObject(match)) return;
  match.matchPolicy ??= 'Equivalent';
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  for (const rule of [...objectsIn(match.resourceRules), ...objectsIn(match.excludeResourceRules)]) rule.scope ??= '*';
}

/** validateNamedRuleWithOperations: a webhook rule, with resourceNames that are unique. */
function validateNamedRule(rule: Obj, path: string): FieldErrorList {
  const errs = validateRule(rule, path);
  const seen = new Set<string>();
  stringsIn(rule.resourceNames).forEach((name, i) => {
    if (seen.has(name)) errs.push(field.duplicate(`${path}.resourceNames[${i}]`, name));
    seen.add(name);
  });
  return errs;
}

/** validateMatchResources: selectors, matchPolicy and rules; a policy's matchConstraints must name resourceRules. */
export function validateMatchResources(match: unknown, path: string, rulesRequired: boolean): FieldErrorList {
  if (!isPlainObject(match)) return rulesRequired ? [field.required(path)] : [];
  const errs: FieldErrorList = [];
  for (const key of ['namespaceSelector', 'objectSelector']) {
    if (match[key] === undefined) errs.push(field.required(`${path}.${key}`));
    else if (isPlainObject(match[key])) errs.push(...validateLabelSelector(match[key] as never, `${path}.${key}`));
  }
  if (match.matchPolicy === undefined) errs.push(field.required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(str(match.matchPolicy))) errs.push(field.notSupported(`${path}.matchPolicy`, match.matchPolicy, MATCH_POLICIES));
  const rules = objectsIn(match.resourceRules);
  if (rulesRequired && rules.length === 0) errs.push(field.required(`${path}.resourceRules`));
  rules.forEach((rule, i) => errs.push(...validateNamedRule(rule, `${path}.resourceRules[${i}]`)));
  objectsIn(match.excludeResourceRules).forEach((rule, i) => errs.push(...validateNamedRule(rule, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}
