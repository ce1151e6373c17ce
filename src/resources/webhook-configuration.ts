import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn, stringOf as str, stringsIn } from '../api/json-read';
import { validateLabelSelector } from '../api/meta-validation';
import { isDns1123Subdomain, isQualifiedName } from '../api/name-validation';
import { CelCompileError, compileExpression, type CompileOptions } from '../admission/policy/cel';
import { WEBHOOK_CONDITION_VARIABLES } from '../admission/webhooks/match-conditions';
import { isPlainObject } from '../api/types';
import { defineResource, type ResourceDefinition } from '../registry/resource-definition';
import { validateWebhookClientConfig } from './webhook-client-config';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '../generated/types/admissionregistration/v1';

/** What admissionregistration.k8s.io/v1's Mutating- and ValidatingWebhookConfiguration share. */

type Obj = Record<string, unknown>;

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
/** v1 accepts only the dry-run-safe side effects (Some and Unknown are v1beta1's). */
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
export const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook / SetDefaults_Rule / SetDefaults_ServiceReference. */
function defaultWebhook(hook: Obj, mutating: boolean): void {
  hook.failurePolicy ??= 'Fail';
  hook.matchPolicy ??= 'Equivalent';
  hook.namespaceSelector ??= {};
  hook.objectSelector ??= {};
  hook.timeoutSeconds ??= 10;
  if (mutating) hook.reinvocationPolicy ??= 'Never';
  for (const rule of objectsIn(hook.rules)) rule.scope ??= '*';
  const service = isPlainObject(hook.clientConfig) ? hook.clientConfig.service : undefined;
  if (isPlainObject(service)) service.port ??= 443;
}

/** IsFullyQualifiedName: a webhook's name is a DNS subdomain of at least three labels. */
function validateWebhookName(name: string, path: string): FieldErrorList {
  if (!name) return [field.required(path)];
  const errs = isDns1123Subdomain(name).map((msg) => field.invalid(path, name, msg));
  if (errs.length) return errs;
  return name.split('.').length < 3 ? [field.invalid(path, name, 'should be a domain with at least three segments separated by dots')] : [];
}

/**
 * validateResources: a lone star may come with subresources ("*" with "pods/exec"), not with other
 * resources; "star/star" comes alone; "x/star" and "star/y" exclude the entries they already cover.
 */
function validateResources(resources: string[], path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!resources.length) errs.push(field.required(path));
  const wildcardSubresourceOf = new Set<string>();
  const wildcardResourceOf = new Set<string>();
  let plainResource = false;
  resources.forEach((entry, i) => {
    if (!entry) return void errs.push(field.required(`${path}[${i}]`));
    const slash = entry.indexOf('/');
    if (slash < 0) {
      plainResource = entry !== '*';
      return;
    }
    const [res, sub] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if (wildcardSubresourceOf.has(res)) errs.push(field.invalid(`${path}[${i}]`, entry, `if '${res}/*' is present, must not specify ${entry}`));
    if (wildcardResourceOf.has(sub)) errs.push(field.invalid(`${path}[${i}]`, entry, `if '*/${sub}' is present, must not specify ${entry}`));
    if (sub === '*') wildcardSubresourceOf.add(res);
    if (res === '*') wildcardResourceOf.add(sub);
  });
  if (resources.length > 1 && resources.includes('*/*')) errs.push(field.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (resources.includes('*') && plainResource)
    errs.push(field.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** validateRuleWithOperations. */
export function validateRule(rule: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const operations = stringsIn(rule.operations);
  if (!operations.length) errs.push(field.required(`${path}.operations`));
  if (operations.length > 1 && operations.includes('*'))
    errs.push(field.invalid(`${path}.operations`, operations, "if '*' is present, must not specify other operations"));
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(field.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  errs.push(...validateResources(stringsIn(rule.resources), `${path}.resources`));
  for (const key of ['apiGroups', 'apiVersions']) {
    const values = stringsIn(rule[key]);
    if (!values.length) errs.push(field.required(`${path}.${key}`));
    if (values.length > 1 && values.includes('*')) errs.push(field.invalid(`${path}.${key}`, values, "if '*' is present, must not specify other " + key));
    if (key === 'apiVersions')
      values.forEach((v, i) => {
        if (!v) errs.push(field.required(`${path}.apiVersions[${i}]`));
      });
  }
  if (rule.scope !== undefined && !SCOPES.includes(str(rule.scope))) errs.push(field.notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

/** validateValidatingWebhook / validateMutatingWebhook, as admissionregistration/v1 runs them. */
function validateWebhook(hook: Obj, path: string, mutating: boolean): FieldErrorList {
  const errs = validateWebhookName(str(hook.name), `${path}.name`);
  objectsIn(hook.rules).forEach((rule, i) => errs.push(...validateRule(rule, `${path}.rules[${i}]`)));
  if (hook.failurePolicy !== undefined && !FAILURE_POLICIES.includes(str(hook.failurePolicy)))
    errs.push(field.notSupported(`${path}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  if (hook.matchPolicy !== undefined && !MATCH_POLICIES.includes(str(hook.matchPolicy)))
    errs.push(field.notSupported(`${path}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  if (hook.sideEffects === undefined) errs.push(field.required(`${path}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(', ')}`));
  else if (!SIDE_EFFECTS.includes(str(hook.sideEffects))) errs.push(field.notSupported(`${path}.sideEffects`, hook.sideEffects, SIDE_EFFECTS));
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout < 1 || timeout > 30))
    errs.push(field.invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  if (mutating && hook.reinvocationPolicy !== undefined && !REINVOCATION_POLICIES.includes(str(hook.reinvocationPolicy))) {
    errs.push(field.notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  for (const key of ['namespaceSelector', 'objectSelector']) {
    if (isPlainObject(hook[key])) errs.push(...validateLabelSelector(hook[key] as never, `${path}.${key}`));
  }
  errs.push(...validateReviewVersions(stringsIn(hook.admissionReviewVersions), `${path}.admissionReviewVersions`));
  errs.push(...validateMatchConditions(hook.matchConditions, `${path}.matchConditions`, WEBHOOK_CONDITION_VARIABLES));
  errs.push(...validateWebhookClientConfig(hook.clientConfig, `${path}.clientConfig`));
  return errs;
}

/** The most matchConditions a webhook or policy may have. */
const MAX_MATCH_CONDITIONS = 64;

/** validateMatchConditions: at most 64, each with a unique qualified name and an expression that compiles. */
export function validateMatchConditions(value: unknown, path: string, variables: readonly string[]): FieldErrorList {
  const conditions = objectsIn(value);
  const errs: FieldErrorList = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(field.tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const name = str(c.name);
    if (!name) errs.push(field.required(`${path}[${i}].name`));
    else for (const msg of isQualifiedName(name)) errs.push(field.invalid(`${path}[${i}].name`, name, msg));
    if (name && names.has(name)) errs.push(field.duplicate(`${path}[${i}].name`, name));
    names.add(name);
    errs.push(...validateExpression(str(c.expression), `${path}[${i}].expression`, variables));
  });
  return errs;
}

/** A CEL expression that is required and must compile against the variables (validateValidationExpression). */
export function validateExpression(expression: string, path: string, variables: readonly string[], options: CompileOptions = {}): FieldErrorList {
  if (!expression.trim()) return [field.required(path)];
  try {
    compileExpression(expression, variables, options);
    return [];
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    return [field.invalid(path, expression, `compilation failed: ${err.message}`)];
  }
}

/** validateAdmissionReviewVersions: required, DNS labels, no duplicates, at least one kapi speaks. */
function validateReviewVersions(versions: string[], path: string): FieldErrorList {
  if (!versions.length) return [field.required(path, `must specify one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) errs.push(field.invalid(`${path}[${i}]`, v, 'duplicate version'));
    seen.add(v);
  });
  if (!versions.some((v) => ADMISSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(field.invalid(path, versions, `must include at least one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

function validateConfiguration(config: WebhookConfiguration, mutating: boolean): FieldErrorList {
  const errs: FieldErrorList = [];
  const names = new Set<string>();
  objectsIn(config.webhooks).forEach((hook, i) => {
    const name = str(hook.name);
    if (name && names.has(name)) errs.push(field.duplicate(`webhooks[${i}].name`, name));
    names.add(name);
    errs.push(...validateWebhook(hook, `webhooks[${i}]`, mutating));
  });
  return errs;
}

/** Both kinds have the same fields but for their webhooks' own (reinvocationPolicy). */
type WebhookConfiguration = MutatingWebhookConfiguration | ValidatingWebhookConfiguration;

export function webhookConfigurationResource(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration'): ResourceDefinition {
  const mutating = kind === 'MutatingWebhookConfiguration';
  return defineResource<WebhookConfiguration>({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: `${kind.toLowerCase()}s`,
    kind,
    namespaced: false,
    categories: ['api-extensions'],
    strategy: strategy<WebhookConfiguration>({
      tracksGeneration: true,
      applyDefaults: (config) => objectsIn(config.webhooks).forEach((hook) => defaultWebhook(hook, mutating)),
      validate: (config) => validateConfiguration(config, mutating),
    }),
    printerColumns: [
      NAME_COLUMN,
      {
        name: 'Webhooks',
        type: 'integer',
        description: 'Webhooks indicates the number of webhooks in the configuration',
        cell: (c) => objectsIn(c.webhooks).length,
      },
      AGE_COLUMN,
    ],
  });
}
