import { celMethod, CelScalar, mapType, type CelMap } from '@bufbuild/cel';
import { nonResourceAttributes, resourceAttributes, type AuthorizationAttributes, type AuthorizationResult } from '../../auth/authorizer/attributes';
import type { UserInfo } from '../../auth/user';
import { authorizerValue, KIND, USER, type Entries } from './authorizer-values';

/**
 * Kubernetes' CEL authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go):
 * `authorizer.group(g).resource(r).subresource(s).namespace(ns).name(n).check(verb)`,
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)`, and on the decision
 * `allowed()`, `reason()`, `errored()`, `error()`. The checks are values (maps with '@'-keys) and
 * the decision asks kapi's authorizer for the user the expression runs for.
 */

/** Asks the authorizer about one user's request. */
export type AuthorizeFn = (attrs: AuthorizationAttributes) => AuthorizationResult;

const MAP = mapType(CelScalar.STRING, CelScalar.DYN);

/** The authorizer of the expression being evaluated: evaluation is synchronous, so one at a time. */
let active: AuthorizeFn | null = null;

export function withAuthorizer<T>(authorize: AuthorizeFn | null, run: () => T): T {
  const previous = active;
  active = authorize;
  try {
    return run();
  } finally {
    active = previous;
  }
}

function entries(target: CelMap): Entries {
  const out: Entries = new Map();
  for (const [k, v] of target.entries()) out.set(String(k), v);
  return out;
}

function extend(target: CelMap, kind: string, values: Record<string, unknown>): Entries {
  const out = entries(target);
  out.set(KIND, kind);
  for (const [k, v] of Object.entries(values)) out.set(k, v);
  return out;
}

const text = (m: Entries, key: string): string => (typeof m.get(key) === 'string' ? (m.get(key) as string) : '');

function decide(m: Entries, verb: string): Entries {
  const user = JSON.parse(text(m, USER)) as UserInfo;
  const attrs: AuthorizationAttributes =
    text(m, KIND) === 'path'
      ? nonResourceAttributes(user, verb, text(m, 'path'))
      : resourceAttributes(user, verb, {
          apiGroup: text(m, 'group'),
          apiVersion: '*',
          namespace: text(m, 'namespace'),
          resource: text(m, 'resource'),
          subresource: text(m, 'subresource'),
          name: text(m, 'name'),
        });
  const result: AuthorizationResult = active ? active(attrs) : { decision: 'NoOpinion', reason: '', error: 'no authorizer' };
  return new Map<string, unknown>([
    [KIND, 'decision'],
    ['allowed', result.decision === 'Allow'],
    ['reason', result.reason],
    ['error', result.error ?? ''],
  ]);
}

const str = CelScalar.STRING;

export const authorizerLibrary = [
  celMethod('path', MAP, [str], MAP, function (path) {
    return extend(this, 'path', { path }) as never;
  }),
  celMethod('group', MAP, [str], MAP, function (group) {
    return extend(this, 'group', { group }) as never;
  }),
  celMethod('serviceAccount', MAP, [str, str], MAP, function (namespace, name) {
    const user: UserInfo = {
      name: `system:serviceaccount:${namespace}:${name}`,
      uid: '',
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
      extra: {},
    };
    return authorizerValue(user) as never;
  }),
  celMethod('resource', MAP, [str], MAP, function (resource) {
    return extend(this, 'resource', { resource, subresource: '', namespace: '', name: '' }) as never;
  }),
  celMethod('subresource', MAP, [str], MAP, function (subresource) {
    return extend(this, 'resource', { subresource }) as never;
  }),
  celMethod('namespace', MAP, [str], MAP, function (namespace) {
    return extend(this, 'resource', { namespace }) as never;
  }),
  celMethod('name', MAP, [str], MAP, function (name) {
    return extend(this, 'resource', { name }) as never;
  }),
  celMethod('check', MAP, [str], MAP, function (verb) {
    return decide(entries(this), verb) as never;
  }),
  celMethod('allowed', MAP, [], CelScalar.BOOL, function () {
    return this.get('allowed') === true;
  }),
  celMethod('reason', MAP, [], str, function () {
    return String(this.get('reason') ?? '');
  }),
  celMethod('errored', MAP, [], CelScalar.BOOL, function () {
    return String(this.get('error') ?? '') !== '';
  }),
  celMethod('error', MAP, [], str, function () {
    return String(this.get('error') ?? '');
  }),
];
