import { StatusError } from '../../api/errors';
import { goQuote } from '../../api/field-errors';
import { objectOf, objectsIn, stringOf as str, stringsIn } from '../../api/json-read';
import type { LabelSelectorStruct } from '../../api/label-selector';
import { isPlainObject, qualifiedResource, type KubeObject, type StatusReason } from '../../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission';
import { matchResource, type MatchedResource } from '../webhooks/equivalents';
import { selectorsMatch } from '../webhooks/matching';
import { compilePolicy, evaluatePolicy, type CompiledPolicy, type PolicyDecision } from './compiled-policy';
import type { ParamResource, PolicySource } from './policy-source';
import { policyVariables, requestVariables } from './request-variables';

type Obj = Record<string, unknown>;

/** Never subject to policies, so that a policy cannot lock its own configuration (IsExemptAdmissionConfigurationResource). */
const EXEMPT = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

const FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

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

interface Denial {
  policy: string;
  binding: string | null;
  message: string;
  reason: string;
}

/** A configuration error (a policy or binding kapi cannot use, missing params) meets the policy's failurePolicy (dispatcher addConfigError). */
class ConfigurationError extends Error {}

/**
 * The ValidatingAdmissionPolicy admission plugin (k8s.io/apiserver's policy/validating
 * dispatcher): every policy whose matchConstraints match the request is evaluated once per
 * matching binding and param; failed validations act as the binding's validationActions say.
 */
export class ValidatingAdmissionPolicy implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionPolicy';
  /** Compiled policies by uid and resourceVersion: each version is compiled once. */
  private readonly compiled = new Map<string, CompiledPolicy>();

  constructor(private readonly source: PolicySource) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { def } = attrs;
    if (def.group === 'admissionregistration.k8s.io' && EXEMPT.has(def.resource)) return;
    const policies = await this.source.policies();
    if (policies.length === 0) return;
    const bindings = await this.source.bindings();
    const denials: Denial[] = [];
    const sorted = [...policies].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    for (const policy of sorted) {
      const spec = objectOf(policy.spec);
      const matched = await this.matches(objectOf(spec.matchConstraints), attrs);
      if (!matched) continue;
      const compiled = this.compile(policy);
      const fail = (binding: string | null, message: string) => {
        if (compiled.failurePolicy === 'Fail') denials.push({ policy: compiled.name, binding, message, reason: '' });
      };
      const paramResource = compiled.paramKind ? this.source.paramResource(compiled.paramKind.apiVersion, compiled.paramKind.kind) : null;
      const configurationError = compiled.configurationError ?? (compiled.paramKind && !paramResource ? paramKindMissing(compiled.paramKind) : null);
      if (configurationError) {
        fail(null, `failed to configure policy: ${configurationError}`);
        continue;
      }
      const annotations = new Map<string, string[]>();
      for (const binding of bindings.filter((b) => objectOf(b.spec).policyName === compiled.name)) {
        const bindingSpec = objectOf(binding.spec);
        const bindingName = binding.metadata.name ?? '';
        if (isPlainObject(bindingSpec.matchResources) && !(await this.matches(bindingSpec.matchResources, attrs))) continue;
        let params: (KubeObject | null)[];
        try {
          params = await this.params(paramResource, objectOf(bindingSpec.paramRef), bindingSpec.paramRef !== undefined, attrs);
        } catch (err) {
          if (!(err instanceof ConfigurationError)) throw err;
          fail(bindingName, `failed to configure binding: ${err.message}`);
          continue;
        }
        const base = requestVariables(attrs, matched);
        const namespaceObject = await this.namespaceObject(attrs);
        const actions = stringsIn(bindingSpec.validationActions);
        for (const param of params) {
          const result = evaluatePolicy(compiled, policyVariables(base, param, namespaceObject), this.source.authorize);
          for (const decision of result.decisions.filter((d) => d.action === 'deny')) this.act(decision, actions, compiled.name, bindingName, attrs, denials);
          for (const [key, value] of result.auditAnnotations) {
            const values = annotations.get(key) ?? [];
            if (!values.includes(value)) values.push(value);
            annotations.set(key, values);
          }
        }
      }
      for (const [key, values] of annotations) setOnce(attrs, `${compiled.name}/${key}`, values.join(', '));
    }
    if (denials.length > 0) throw refusal(attrs, denials[0]);
  }

  /** Deny, Warn and Audit of one failed validation. */
  private act(decision: PolicyDecision, actions: string[], policy: string, binding: string, attrs: AdmissionAttributes, denials: Denial[]): void {
    for (const action of actions) {
      if (action === 'Deny') denials.push({ policy, binding, message: decision.message, reason: decision.reason });
      if (action === 'Warn') attrs.request.warn(`Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${binding}': ${decision.message}`);
      if (action === 'Audit') {
        const value = [{ message: decision.message, policy, binding, expressionIndex: decision.index, validationActions: actions }];
        setOnce(attrs, FAILURE_ANNOTATION, JSON.stringify(value));
      }
    }
  }

  private compile(policy: KubeObject): CompiledPolicy {
    const key = `${policy.metadata.uid ?? ''}/${policy.metadata.resourceVersion ?? ''}`;
    let compiled = this.compiled.get(key);
    if (!compiled) {
      compiled = compilePolicy(policy);
      // Keys of older versions are dropped with the whole map now and then; recompiling is cheap.
      if (this.compiled.size >= 1000) this.compiled.clear();
      this.compiled.set(key, compiled);
    }
    return compiled;
  }

  /** matching.Matcher.Matches: selectors, excludeResourceRules, then resourceRules (none: everything). */
  private async matches(criteria: Obj, attrs: AdmissionAttributes): Promise<MatchedResource | null> {
    if (!(await selectorsMatch(criteria, attrs, async (ns) => (await this.source.namespace(ns))?.metadata.labels as Record<string, string> | undefined))) return null;
    const equivalents = this.source.equivalents(attrs.def);
    const target = { operation: attrs.operation, subresource: attrs.subresource, clusterScoped: !attrs.def.namespaced };
    const equivalent = criteria.matchPolicy !== 'Exact';
    const name = attrs.name || (attrs.object?.metadata.name ?? '');
    const named = (rule: Obj) => stringsIn(rule.resourceNames).length === 0 || stringsIn(rule.resourceNames).includes(name);
    if (matchResource(objectsIn(criteria.excludeResourceRules), target, equivalents, equivalent, named)) return null;
    const rules = objectsIn(criteria.resourceRules);
    const matched = rules.length === 0 ? matchResource([{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }], target, equivalents, false) : matchResource(rules, target, equivalents, equivalent, named);
    if (!matched) return null;
    // A subresource with a kind of its own (Scale) is evaluated as that kind whatever version matched.
    return attrs.kind.kind === attrs.def.kind ? matched : { ...matched, kind: attrs.kind, convert: (o) => o, revert: (o) => o };
  }

  /** generic.CollectParams: no paramKind, no params; a name or a selector in the ref's (or the request's) namespace. */
  private async params(resource: ParamResource | null, ref: Obj, hasRef: boolean, attrs: AdmissionAttributes): Promise<(KubeObject | null)[]> {
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
    if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') throw new ConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
    return params;
  }

  /** The request's namespace; none for cluster-scoped requests and namespaces themselves. */
  private async namespaceObject(attrs: AdmissionAttributes): Promise<KubeObject | null> {
    if (!attrs.namespace || (!attrs.def.group && attrs.def.resource === 'namespaces')) return null;
    return this.source.namespace(attrs.namespace);
  }
}

/** A paramKind no served resource has (the policy source's configuration error), in Go's GroupVersionKind form. */
function paramKindMissing({ apiVersion, kind }: { apiVersion: string; kind: string }): string {
  return `failed to find resource referenced by paramKind: '${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${kind}'`;
}

/** An audit annotation keeps its first value (admission.Attributes.AddAnnotation refuses to overwrite). */
function setOnce(attrs: AdmissionAttributes, key: string, value: string): void {
  if (!attrs.request.auditAnnotations.has(key)) attrs.request.auditAnnotations.set(key, value);
}

/** admission.NewForbidden with the policy's reason and its code, the message also as the one cause. */
function refusal(attrs: AdmissionAttributes, d: Denial): StatusError {
  const message = d.binding === null ? `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}` : `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
  const reason = d.reason || 'Invalid';
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
