import { field, type FieldErrorList } from '../api/field-errors';
import type { FlowSchema } from '../generated/types/flowcontrol/v1';
import { objectOf, objectsIn, stringOf, stringsIn } from '../api/json-read';
import { isDns1123Label, isDns1123Subdomain } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateConditionTypes } from './flowcontrol-conditions';

/**
 * flowcontrol.apiserver.k8s.io/v1 FlowSchema: stored, defaulted and validated as kube-apiserver
 * does, with its status. kapi does not dispatch by them (see docs/divergences.md).
 */

type Obj = Record<string, unknown>;

const MAX_MATCHING_PRECEDENCE = 10000;
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

const specOf = (obj: KubeObject): Obj => (isPlainObject(obj.spec) ? obj.spec : ((obj.spec = {}) as Obj));

/** SetDefaults_FlowSchemaSpec: matchingPrecedence 1000. */
function defaultFlowSchema(obj: FlowSchema): void {
  const spec = specOf(obj);
  if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
}

/** ValidateFlowSchemaSubject and the three kinds' own checks. */
function validateSubject(subject: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const kind = stringOf(subject.kind);
  const forbidUnless = (key: 'user' | 'group' | 'serviceAccount', own: string, label: string) => {
    if (kind !== own && subject[key] !== undefined && subject[key] !== null) {
      errs.push(field.forbidden(`${path}.${key}`, `${key} is forbidden when subject kind is not '${label}'`));
    }
  };
  const named = (key: string, what: string) => {
    const inner = subject[key];
    if (!isPlainObject(inner)) return [field.required(`${path}.${key}`, `${what} is required when subject kind is '${kind}'`)];
    return stringOf(inner.name) ? [] : [field.required(`${path}.${key}.name`)];
  };
  switch (kind) {
    case 'ServiceAccount': {
      const sa = subject.serviceAccount;
      if (!isPlainObject(sa)) {
        errs.push(field.required(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      } else {
        const name = stringOf(sa.name);
        if (!name) errs.push(field.required(`${path}.serviceAccount.name`));
        else if (name !== '*') errs.push(...isDns1123Subdomain(name).map((m) => field.invalid(`${path}.serviceAccount.name`, name, m)));
        const ns = stringOf(sa.namespace);
        if (!ns) errs.push(field.required(`${path}.serviceAccount.namespace`, 'must specify namespace for service account'));
        else errs.push(...isDns1123Label(ns).map((m) => field.invalid(`${path}.serviceAccount.namespace`, ns, m)));
      }
      forbidUnless('user', 'User', 'User');
      forbidUnless('group', 'Group', 'Group');
      break;
    }
    case 'User':
      errs.push(...named('user', 'user'));
      forbidUnless('serviceAccount', 'ServiceAccount', 'ServiceAccount');
      forbidUnless('group', 'Group', 'Group');
      break;
    case 'Group':
      errs.push(...named('group', 'group'));
      forbidUnless('serviceAccount', 'ServiceAccount', 'ServiceAccount');
      forbidUnless('user', 'User', 'User');
      break;
    default:
      errs.push(field.notSupported(`${path}.kind`, kind, SUBJECT_KINDS));
  }
  return errs;
}

function validateVerbs(verbs: string[], path: string): FieldErrorList {
  if (verbs.length === 0) return [field.required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [field.invalid(path, verbs, "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => SUPPORTED_VERBS.includes(v)) ? [] : [field.notSupported(path, verbs, SUPPORTED_VERBS)];
}

/** ValidateNonResourceURLPath. */
function validateNonResourceUrl(url: string, path: string): FieldErrorList {
  if (url === '') return [field.invalid(path, url, 'must not be empty')];
  if (url === '/') return [];
  if (!url.startsWith('/')) return [field.invalid(path, url, 'must start with slash')];
  if (url.includes(' ')) return [field.invalid(path, url, 'must not contain white-space')];
  if (url.includes('//')) return [field.invalid(path, url, 'must not contain double slash')];
  const stars = url.split('*').length - 1;
  if (stars > 1 || (stars === 1 && !url.endsWith('/*'))) return [field.invalid(path, url, 'wildcard can only do suffix matching')];
  return [];
}

/** ValidateFlowSchemaResourcePolicyRule. */
function validateResourceRule(rule: Obj, path: string): FieldErrorList {
  const errs = validateVerbs(stringsIn(rule.verbs), `${path}.verbs`);
  const groups = stringsIn(rule.apiGroups);
  if (groups.length === 0) errs.push(field.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*'))
    errs.push(field.invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other api groups"));
  const resources = stringsIn(rule.resources);
  if (resources.length === 0) errs.push(field.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*'))
    errs.push(field.invalid(`${path}.resources`, resources, "if '*' is present, must not specify other resources"));
  const namespaces = stringsIn(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(field.required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(field.invalid(`${path}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => errs.push(...isDns1123Label(ns).map((m) => field.invalid(`${path}.namespaces[${i}]`, ns, NS_ERR_INTRO + m))));
  }
  return errs;
}

/** ValidateFlowSchemaNonResourcePolicyRule. */
function validateNonResourceRule(rule: Obj, path: string): FieldErrorList {
  const errs = validateVerbs(stringsIn(rule.verbs), `${path}.verbs`);
  const urls = stringsIn(rule.nonResourceURLs);
  if (urls.length === 0) errs.push(field.required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(field.invalid(`${path}.nonResourceURLs`, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else urls.forEach((u, i) => errs.push(...validateNonResourceUrl(u, `${path}.nonResourceURLs[${i}]`)));
  return errs;
}

/** ValidateFlowSchemaPolicyRulesWithSubjects. */
function validateRule(rule: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const subjects = objectsIn(rule.subjects);
  if (subjects.length === 0) errs.push(field.required(`${path}.subjects`, 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...validateSubject(s, `${path}.subjects[${i}]`)));
  const resourceRules = objectsIn(rule.resourceRules);
  const nonResourceRules = objectsIn(rule.nonResourceRules);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    errs.push(field.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  }
  resourceRules.forEach((r, i) => errs.push(...validateResourceRule(r, `${path}.resourceRules[${i}]`)));
  nonResourceRules.forEach((r, i) => errs.push(...validateNonResourceRule(r, `${path}.nonResourceRules[${i}]`)));
  return errs;
}

/** ValidateFlowSchema (spec and status). */
function validateFlowSchema(obj: FlowSchema): FieldErrorList {
  const spec = specOf(obj);
  const errs: FieldErrorList = [];
  const precedence = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (precedence <= 0) errs.push(field.invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > MAX_MATCHING_PRECEDENCE)
    errs.push(field.invalid('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (precedence === 1 && obj.metadata.name !== 'exempt') {
    errs.push(field.invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  }
  if (isPlainObject(spec.distinguisherMethod) && !DISTINGUISHER_METHODS.includes(stringOf(spec.distinguisherMethod.type))) {
    errs.push(field.notSupported('spec.distinguisherMethod.type', spec.distinguisherMethod, DISTINGUISHER_METHODS));
  }
  const plName = stringOf(objectOf(spec.priorityLevelConfiguration).name);
  if (!plName) errs.push(field.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else errs.push(...isDns1123Subdomain(plName).map((m) => field.invalid('spec.priorityLevelConfiguration.name', plName, m)));
  objectsIn(spec.rules).forEach((r, i) => errs.push(...validateRule(r, `spec.rules[${i}]`)));
  errs.push(...validateConditionTypes(obj));
  return errs;
}

/** The Dangling condition's status, "?" until something has judged the reference (printFlowSchema). */
function missingPriorityLevel(obj: FlowSchema): string {
  const dangling = objectsIn(objectOf(obj.status).conditions).find((c) => c.type === 'Dangling');
  return dangling ? stringOf(dangling.status) : '?';
}

const precedenceOf = (o: KubeObject): number => (typeof specOf(o).matchingPrecedence === 'number' ? (specOf(o).matchingPrecedence as number) : 0);

/** FlowSchemaSequence: by matching precedence, then by name, as printFlowSchemaList shows them. */
function bySequence(a: FlowSchema, b: FlowSchema): number {
  return precedenceOf(a) - precedenceOf(b) || (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);
}

export const flowschemas = defineResource<FlowSchema>({
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  resource: 'flowschemas',
  kind: 'FlowSchema',
  namespaced: false,
  subresources: ['status'],
  strategy: strategy<FlowSchema>({
    tracksGeneration: true,
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    applyDefaults: defaultFlowSchema,
    validate: validateFlowSchema,
    validateStatusUpdate: validateConditionTypes,
  }),
  rowOrder: bySequence,
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'PriorityLevel',
      type: 'string',
      description: '`name` is the name of the priority level configuration being referenced Required.',
      cell: (o) => stringOf(objectOf(specOf(o).priorityLevelConfiguration).name),
    },
    {
      name: 'MatchingPrecedence',
      type: 'string',
      description:
        '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.',
      cell: precedenceOf,
    },
    {
      name: 'DistinguisherMethod',
      type: 'string',
      description:
        '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.',
      cell: (o) => (isPlainObject(specOf(o).distinguisherMethod) ? stringOf(objectOf(specOf(o).distinguisherMethod).type) : '<none>'),
    },
    AGE_COLUMN,
    { name: 'MissingPL', type: 'string', description: 'references a broken or non-existent PriorityLevelConfiguration', cell: missingPriorityLevel },
  ],
});
