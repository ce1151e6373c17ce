import { StatusError } from '../../api/errors';
import { goQuote } from '../../api/field-errors';
import { objectsIn, stringOf as str, stringsIn } from '../../api/json-read';
import type { LabelSelectorStruct } from '../../api/label-selector';
import { isPlainObject, qualifiedResource, type KubeObject, type StatusReason } from '../../api/types';
import type { AdmissionAttributes } from '../admission';
import { matchResource, type MatchedResource } from '../webhooks/equivalents';
import { selectorsMatch } from '../webhooks/matching';
import type { ParamResource, PolicySource } from './policy-source';

/**
 * What validating and mutating admission policies share (k8s.io/apiserver's policy/generic
 * dispatcher and matching package): which requests a policy or binding matches, its params,
 * the request's namespace, and how a refusal looks.
 */

type Obj = Record<string, unknown>;

/** A configuration error (a policy or binding kapi cannot use, missing params) meets the policy's failurePolicy (dispatcher addConfigError). */
export class ConfigurationError extends Error {}

/** A paramKind no served resource has (the policy source's configuration error), in Go's GroupVersionKind form. */
export function paramKindMissing({ apiVersion, kind }: { apiVersion: string; kind: string }): string {
  return `failed to find resource referenced by paramKind: '${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${kind}'`;
}

/** Policies in name order, as kube's policy source lists them. */
export function byName(policies: readonly KubeObject[]): KubeObject[] {
  return [...policies].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
}

export class PolicyMatching {
  constructor(private readonly source: Pick<PolicySource, 'namespace' | 'equivalents'>) {}

  /** matching.Matcher.Matches: selectors, excludeResourceRules, then resourceRules (none: everything). */
  async matches(criteria: Obj, attrs: AdmissionAttributes): Promise<MatchedResource | null> {
    if (!(await selectorsMatch(criteria, attrs, async (ns) => (await this.source.namespace(ns))?.metadata.labels as Record<string, string> | undefined)))
      return null;
    const equivalents = this.source.equivalents(attrs.def);
    const target = { operation: attrs.operation, subresource: attrs.subresource, clusterScoped: !attrs.def.namespaced };
    const equivalent = criteria.matchPolicy !== 'Exact';
    const name = attrs.name || (attrs.object?.metadata.name ?? '');
    const named = (rule: Obj) => stringsIn(rule.resourceNames).length === 0 || stringsIn(rule.resourceNames).includes(name);
    if (matchResource(objectsIn(criteria.excludeResourceRules), target, equivalents, equivalent, named)) return null;
    const rules = objectsIn(criteria.resourceRules);
    const matched =
      rules.length === 0
        ? matchResource([{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }], target, equivalents, false)
        : matchResource(rules, target, equivalents, equivalent, named);
    if (!matched) return null;
    // A subresource with a kind of its own (Scale) is evaluated as that kind whatever version matched.
    return attrs.kind.kind === attrs.def.kind ? matched : { ...matched, kind: attrs.kind, convert: (o) => o, revert: (o) => o };
  }

  /** generic.CollectParams: no paramKind, no params; a name or a selector in the ref's (or the request's) namespace. */
  async params(resource: ParamResource | null, ref: Obj, hasRef: boolean, attrs: AdmissionAttributes): Promise<(KubeObject | null)[]> {
    if (!resource || !hasRef) return [null];
    let namespace = '';
    if (resource.namespaced) {
      namespace = str(ref.namespace) || attrs.namespace;
      if (!namespace) throw new ConfigurationError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    } else if (str(ref.namespace)) {
      throw new ConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    }
    let params: KubeObject[];
    if (str(ref.name)) {
      const found = await resource.get(namespace, str(ref.name));
      params = found ? [found] : [];
    } else {
      params = await resource.list(namespace, (isPlainObject(ref.selector) ? ref.selector : {}) as LabelSelectorStruct);
    }
    if (params.length === 0 && ref.parameterNotFoundAction === 'Deny')
      throw new ConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
    return params;
  }

  /** The request's namespace; none for cluster-scoped requests and namespaces themselves. */
  async namespaceObject(attrs: AdmissionAttributes): Promise<KubeObject | null> {
    if (!attrs.namespace || (!attrs.def.group && attrs.def.resource === 'namespaces')) return null;
    return this.source.namespace(attrs.namespace);
  }
}

/** A refusal's HTTP code by its reason (validating.reasonToCode). */
function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Invalid':
      return 422;
    case 'RequestEntityTooLarge':
      return 413;
    case 'Unauthorized':
      return 401;
    default:
      return 500;
  }
}

/** admission.NewForbidden with the policy's reason and its code, the message also as the one cause. */
export function policyRefusal(attrs: AdmissionAttributes, message: string, reason: string): StatusError {
  const gr = { group: attrs.def.group, resource: attrs.def.resource };
  const name = attrs.name || (attrs.object?.metadata.name ?? '');
  const what = name ? `${qualifiedResource(gr)} ${goQuote(name)}` : qualifiedResource(gr);
  return new StatusError(reasonToCode(reason), reason as StatusReason, `${what} is forbidden: ${message}`, {
    ...(name ? { name } : {}),
    ...(gr.group ? { group: gr.group } : {}),
    kind: gr.resource,
    causes: [{ message }],
  });
}

/** Compiled policies by uid and resourceVersion: each version of a policy is compiled once. */
export class CompiledByVersion<T> {
  private readonly compiled = new Map<string, T>();

  constructor(private readonly compile: (policy: KubeObject) => T) {}

  get(policy: KubeObject): T {
    const key = `${policy.metadata.uid ?? ''}/${policy.metadata.resourceVersion ?? ''}`;
    let compiled = this.compiled.get(key);
    if (compiled === undefined) {
      compiled = this.compile(policy);
      // Keys of older versions are dropped with the whole map now and then; recompiling is cheap.
      if (this.compiled.size >= 1000) this.compiled.clear();
      this.compiled.set(key, compiled);
    }
    return compiled;
  }
}
