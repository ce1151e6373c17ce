import type { StatusError } from '../../api/errors';
import { objectOf, stringsIn } from '../../api/json-read';
import { isPlainObject, type KubeObject } from '../../api/types';
import { isPromise, type MaybePromise } from '../../api/maybe-promise';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission';
import { compilePolicy, evaluatePolicy, type PolicyDecision } from './compiled-policy';
import { isExemptAdmissionConfiguration } from '../exempt-configuration';
import { byName, CompiledByVersion, ConfigurationError, paramKindMissing, PolicyMatching, policyRefusal } from './policy-matching';
import type { PolicySource } from './policy-source';
import { policyVariables, requestVariables } from './request-variables';

const FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

interface Denial {
  policy: string;
  binding: string | null;
  message: string;
  reason: string;
}

/**
 * The ValidatingAdmissionPolicy admission plugin (k8s.io/apiserver's policy/validating
 * dispatcher): every policy whose matchConstraints match the request is evaluated once per
 * matching binding and param; failed validations act as the binding's validationActions say.
 */
export class ValidatingAdmissionPolicy implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionPolicy';
  private readonly compiled = new CompiledByVersion(compilePolicy);

  private readonly matching: PolicyMatching;

  constructor(private readonly source: PolicySource) {
    this.matching = new PolicyMatching(source);
  }

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (isExemptAdmissionConfiguration(attrs)) return;
    const policies = this.source.policies();
    if (!isPromise(policies) && policies.length === 0) return;
    return this.validateWith(attrs, policies);
  }

  private async validateWith(attrs: AdmissionAttributes, pending: MaybePromise<readonly KubeObject[]>): Promise<void> {
    const policies = await pending;
    if (policies.length === 0) return;
    const bindings = await this.source.bindings();
    const denials: Denial[] = [];
    for (const policy of byName(policies)) {
      const spec = objectOf(policy.spec);
      const matched = await this.matching.matches(objectOf(spec.matchConstraints), attrs);
      if (!matched) continue;
      const compiled = this.compiled.get(policy);
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
        if (isPlainObject(bindingSpec.matchResources) && !(await this.matching.matches(bindingSpec.matchResources, attrs))) continue;
        let params: (KubeObject | null)[];
        try {
          params = await this.matching.params(paramResource, objectOf(bindingSpec.paramRef), bindingSpec.paramRef !== undefined, attrs);
        } catch (err) {
          if (!(err instanceof ConfigurationError)) throw err;
          fail(bindingName, `failed to configure binding: ${err.message}`);
          continue;
        }
        const base = requestVariables(attrs, matched);
        const namespaceObject = await this.matching.namespaceObject(attrs);
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
}

/** An audit annotation keeps its first value (admission.Attributes.AddAnnotation refuses to overwrite). */
function setOnce(attrs: AdmissionAttributes, key: string, value: string): void {
  if (!attrs.request.auditAnnotations.has(key)) attrs.request.auditAnnotations.set(key, value);
}

/** The first denial, as the dispatcher words it. */
function refusal(attrs: AdmissionAttributes, d: Denial): StatusError {
  const message =
    d.binding === null
      ? `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`
      : `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
  return policyRefusal(attrs, message, d.reason || 'Invalid');
}
