import { field, type FieldErrorList } from '../api/field-errors';
import type { IngressClass } from '../generated/types/networking/v1';
import { stringOf as str } from '../api/json-read';
import { isDns1123Label, isDns1123Subdomain, nameIsPathSegment } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

/** networking.k8s.io/v1 IngressClass: which controller serves the Ingresses that name the class. */

type Obj = Record<string, unknown>;

const MAX_CONTROLLER_LENGTH = 250;
const SCOPES = ['Cluster', 'Namespace'];
const HTTP_PATH = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";

const spec = (ic: KubeObject): Obj => (isPlainObject(ic.spec) ? ic.spec : ((ic.spec = {}) as Obj));

/** SetDefaults_IngressClass: a parameters reference is cluster-scoped unless it says otherwise. */
function defaultIngressClass(ic: IngressClass): void {
  const params = spec(ic).parameters;
  if (isPlainObject(params) && params.scope === undefined) params.scope = 'Cluster';
}

/** IsDomainPrefixedPath: "acme.io/ingress-controller". */
function validateController(controller: string, path: string): FieldErrorList {
  const slash = controller.indexOf('/');
  const host = controller.slice(0, slash);
  const rest = controller.slice(slash + 1);
  if (slash <= 0 || !rest) return [field.invalid(path, controller, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDns1123Subdomain(host).map((msg) => field.invalid(path, host, msg));
  if (!new RegExp(`^${HTTP_PATH}$`).test(rest)) errs.push(field.invalid(path, rest, `must be a valid path (regex used for validation is '${HTTP_PATH}')`));
  return errs;
}

function validateParameters(params: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (typeof params.apiGroup === 'string')
    for (const msg of isDns1123Subdomain(params.apiGroup)) errs.push(field.invalid(`${path}.apiGroup`, params.apiGroup, msg));
  for (const key of ['kind', 'name']) {
    const value = str(params[key]);
    if (!value) errs.push(field.required(`${path}.${key}`));
    else for (const msg of nameIsPathSegment(value, false)) errs.push(field.invalid(`${path}.${key}`, value, msg));
  }
  if (typeof params.scope !== 'string') return [...errs, field.required(`${path}.scope`)];
  if (!SCOPES.includes(params.scope)) return [...errs, field.notSupported(`${path}.scope`, params.scope, SCOPES)];
  const hasNamespace = typeof params.namespace === 'string';
  if (params.scope === 'Namespace') {
    if (!hasNamespace) errs.push(field.required(`${path}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else for (const msg of isDns1123Label(params.namespace as string)) errs.push(field.invalid(`${path}.namespace`, params.namespace, msg));
  } else if (hasNamespace) {
    errs.push(field.forbidden(`${path}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

/** validateIngressClassSpec. */
function validateIngressClass(ic: IngressClass): FieldErrorList {
  const s = spec(ic);
  const errs: FieldErrorList = [];
  const controller = str(s.controller);
  if (!controller) errs.push(field.required('spec.controller'));
  else {
    if (controller.length > MAX_CONTROLLER_LENGTH) errs.push(field.tooLong('spec.controller', MAX_CONTROLLER_LENGTH));
    errs.push(...validateController(controller, 'spec.controller'));
  }
  if (isPlainObject(s.parameters)) errs.push(...validateParameters(s.parameters, 'spec.parameters'));
  return errs;
}

function validateControllerUnchanged(next: IngressClass, prev: IngressClass): FieldErrorList {
  const controller = str(spec(next).controller);
  return controller === str(spec(prev).controller) ? [] : [field.invalid('spec.controller', controller, 'field is immutable')];
}

function parametersCell(ic: IngressClass): string {
  const params = spec(ic).parameters;
  if (!isPlainObject(params)) return '<none>';
  const kind = typeof params.apiGroup === 'string' ? `${str(params.kind)}.${params.apiGroup}` : str(params.kind);
  return `${kind}/${str(params.name)}`;
}

export const ingressclasses = defineResource<IngressClass>({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingressclasses',
  kind: 'IngressClass',
  namespaced: false,
  strategy: strategy<IngressClass>({
    tracksGeneration: true,
    applyDefaults: defaultIngressClass,
    validate: validateIngressClass,
    validateUpdate: validateControllerUnchanged,
  }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'Controller', type: 'string', description: 'Controller that is responsible for handling this class', cell: (ic) => str(spec(ic).controller) },
    { name: 'Parameters', type: 'string', description: 'A reference to a resource with additional parameters', cell: parametersCell },
    AGE_COLUMN,
  ],
});
