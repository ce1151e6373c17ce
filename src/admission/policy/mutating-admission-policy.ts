import { jsonEqual } from '../../api/deep-equal';
import { objectOf, stringOf as str } from '../../api/json-read';
import { StatusError } from '../../api/errors';
import { isPlainObject, type KubeObject, type StatusReason } from '../../api/types';
import { isPromise, type MaybePromise } from '../../api/maybe-promise';
import { kindSchema, type ObjectNode } from '../../schema/typed-schema';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission';
import { MutatorReinvocation, type ReinvocationContext } from '../reinvocation';
import type { MatchedResource } from '../webhooks/equivalents';
import { compileMutatingPolicy, invokeMutatingPolicy, MutationError, type CompiledMutatingPolicy } from './compiled-mutation';
import { isExemptAdmissionConfiguration } from '../exempt-configuration';
import { byName, CompiledByVersion, ConfigurationError, paramKindMissing, PolicyMatching } from './policy-matching';
import type { PolicySource } from './policy-source';
import { policyVariables, requestVariables } from './request-variables';

/** A policy that could not be applied (generic.PolicyError); reason '' leaves the refusal Forbidden. */
interface PolicyFailure {
  policy: CompiledMutatingPolicy;
  binding: string | null;
  message: string;
  reason: string;
}

/** One policy applied through one binding with one param (generic.PolicyInvocation). */
interface Invocation {
  policy: CompiledMutatingPolicy;
  binding: string;
  param: KubeObject | null;
  matched: MatchedResource;
  namespaceObject: KubeObject | null;
}

/** An invocation's identity across the chain's passes (the dispatcher's keyFor): policy, binding, param. */
function invocationKey({ policy, binding, param }: Invocation): string {
  return JSON.stringify([policy.name, binding, param ? [param.metadata.namespace ?? '', param.metadata.name ?? ''] : null]);
}

/**
 * The MutatingAdmissionPolicy admission plugin (k8s.io/apiserver's policy/mutating dispatcher):
 * every policy whose matchConstraints match the request runs once per matching binding and
 * param, in policy name order; each mutation changes the object the next one sees. In the
 * admission chain's second pass (after any mutator changed the object) only the invocations with
 * reinvocationPolicy IfNeeded that ran before a change run again (policy/mutating dispatcher).
 */
export class MutatingAdmissionPolicy implements AdmissionPlugin {
  readonly name = 'MutatingAdmissionPolicy';
  private readonly compiled = new CompiledByVersion(compileMutatingPolicy);
  private readonly matching: PolicyMatching;

  constructor(private readonly source: PolicySource) {
    this.matching = new PolicyMatching(source);
  }

  admit(attrs: AdmissionAttributes, context: ReinvocationContext): Promise<void> | void {
    if (!attrs.object || isExemptAdmissionConfiguration(attrs)) return;
    const policies = this.source.policies();
    if (!isPromise(policies) && policies.length === 0) return;
    return this.admitWith(attrs, context, policies);
  }

  private async admitWith(attrs: AdmissionAttributes, context: ReinvocationContext, pending: MaybePromise<readonly KubeObject[]>): Promise<void> {
    if (!attrs.object) return;
    const policies = await pending;
    if (policies.length === 0) return;
    const failures: PolicyFailure[] = [];
    const invocations = await this.invocations(byName(policies), await this.source.bindings(), attrs, failures);
    const reinvocation = MutatorReinvocation.begin(context, this.name, attrs.object);
    for (const invocation of invocations) {
      const key = invocationKey(invocation);
      if (reinvocation.skips(key)) continue;
      reinvocation.invoked(key, this.invoke(invocation, attrs, failures), invocation.policy.reinvocationPolicy === 'IfNeeded');
    }
    reinvocation.end(attrs.object);
    // Failures of policies with failurePolicy Ignore are dropped; any other refuses the request.
    const refused = failures.filter((f) => f.policy.failurePolicy === 'Fail');
    if (refused.length > 0) throw policyErrorsRefusal(attrs, refused);
  }

  /** The policies' invocations for this request; configuration errors meet the policy's failurePolicy here. */
  private async invocations(
    policies: KubeObject[],
    bindings: readonly KubeObject[],
    attrs: AdmissionAttributes,
    failures: PolicyFailure[],
  ): Promise<Invocation[]> {
    const out: Invocation[] = [];
    for (const policy of policies) {
      const matched = await this.matching.matches(objectOf(objectOf(policy.spec).matchConstraints), attrs);
      if (!matched) continue;
      const compiled = this.compiled.get(policy);
      const paramResource = compiled.paramKind ? this.source.paramResource(compiled.paramKind.apiVersion, compiled.paramKind.kind) : null;
      const configurationError = compiled.configurationError ?? (compiled.paramKind && !paramResource ? paramKindMissing(compiled.paramKind) : null);
      if (configurationError) {
        failures.push({ policy: compiled, binding: null, message: `failed to configure policy: ${configurationError}`, reason: '' });
        continue;
      }
      const namespaceObject = await this.matching.namespaceObject(attrs);
      for (const binding of bindings.filter((b) => str(objectOf(b.spec).policyName) === compiled.name)) {
        const spec = objectOf(binding.spec);
        const name = binding.metadata.name ?? '';
        if (isPlainObject(spec.matchResources) && !(await this.matching.matches(spec.matchResources, attrs))) continue;
        try {
          for (const param of await this.matching.params(paramResource, objectOf(spec.paramRef), spec.paramRef !== undefined, attrs)) {
            out.push({ policy: compiled, binding: name, param, matched, namespaceObject });
          }
        } catch (err) {
          if (!(err instanceof ConfigurationError)) throw err;
          failures.push({ policy: compiled, binding: name, message: `failed to configure binding: ${err.message}`, reason: '' });
        }
      }
    }
    return out;
  }

  /** Runs one invocation on attrs.object (as the matched version sees it); true when it changed the object. */
  private invoke(invocation: Invocation, attrs: AdmissionAttributes, failures: PolicyFailure[]): boolean {
    const { matched } = invocation;
    const object = attrs.object as KubeObject;
    const variablesFor = (current: KubeObject) => {
      const base = requestVariables({ ...attrs, object: matched.revert(current) }, matched);
      return policyVariables(base, invocation.param, invocation.namespaceObject);
    };
    let result: KubeObject | null;
    try {
      result = invokeMutatingPolicy(invocation.policy, matched.convert(object), variablesFor, schemaOf(attrs, matched), this.source.authorize);
    } catch (err) {
      if (!(err instanceof MutationError)) throw err;
      failures.push({ policy: invocation.policy, binding: invocation.binding, message: err.message, reason: 'Invalid' });
      return false;
    }
    if (!result) return false;
    const next = matched.revert(result);
    if (jsonEqual(next, object)) return false;
    // The store keeps the object it passed in, so the mutated one replaces its contents.
    for (const key of Object.keys(object)) delete (object as Record<string, unknown>)[key];
    Object.assign(object, next);
    return true;
  }
}

/** The schema apply configurations merge by: the matched version's kind (a custom resource's own structural schema). */
function schemaOf(attrs: AdmissionAttributes, matched: MatchedResource): ObjectNode | null {
  if (matched.kind.kind === attrs.def.kind && attrs.def.ownSchema?.typed) return attrs.def.ownSchema.typed;
  return kindSchema(matched.kind);
}

/**
 * generic.policyDispatcher's refusal: admission.NewForbidden (403) whose message becomes the first
 * failure's (PolicyError.Error), its reason the first failure's if it has one, and every failure a cause.
 */
function policyErrorsRefusal(attrs: AdmissionAttributes, failures: PolicyFailure[]): StatusError {
  const messages = failures.map((f) =>
    f.binding === null
      ? `policy ${JSON.stringify(f.policy.name)} denied request: ${f.message}`
      : `policy '${f.policy.name}' with binding '${f.binding}' denied request: ${f.message}`,
  );
  const name = attrs.name || (attrs.object?.metadata.name ?? '');
  const reason = (failures[0].reason || 'Forbidden') as StatusReason;
  return new StatusError(403, reason, messages[0], {
    ...(name ? { name } : {}),
    ...(attrs.def.group ? { group: attrs.def.group } : {}),
    kind: attrs.def.resource,
    causes: messages.map((message) => ({ message })),
  });
}
