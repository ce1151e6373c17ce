import { objectOf, objectsIn, stringOf as str } from '../../api/json-read';
import type { KubeObject } from '../../api/types';
import type { AuthorizeFn } from './authorizer-library';
import { CelCompileError, compileExpression, evaluationError, fromCel, isCelError, type CompiledExpression } from './cel';
import { matchConditionsOutcome, type MatchOutcome } from './match-conditions';

/**
 * A ValidatingAdmissionPolicy compiled once per resourceVersion, and its evaluation against one
 * request (k8s.io/apiserver's validating.validator Validate): matchConditions, then variables,
 * validations and audit annotations, with the policy's failurePolicy deciding what an error does.
 */

/** The variables a policy's expressions may read (OptionalVariableDeclarations): `params` only with a paramKind. */
export function policyVariableNames(hasParams: boolean): string[] {
  return ['object', 'oldObject', 'request', ...(hasParams ? ['params'] : []), 'namespaceObject', 'authorizer', 'variables'];
}

export type FailurePolicy = 'Fail' | 'Ignore';

export interface PolicyDecision {
  action: 'admit' | 'deny';
  message: string;
  /** The StatusReason of a refusal: the validation's reason, Invalid when it gives none. */
  reason: string;
  /** Which validation decided (for the Audit annotation's expressionIndex). */
  index: number;
}

export interface PolicyResult {
  decisions: PolicyDecision[];
  /** key → value of the policy's auditAnnotations that produced a value. */
  auditAnnotations: Map<string, string>;
}

interface Validation {
  expression: CompiledExpression;
  message: string;
  messageExpression: CompiledExpression | null;
  reason: string;
}

export interface CompiledPolicy {
  name: string;
  failurePolicy: FailurePolicy;
  paramKind: { apiVersion: string; kind: string } | null;
  /** Why the policy cannot be used (an expression that does not compile): every matching request meets its failurePolicy. */
  configurationError: string | null;
  matchConditions: { name: string; expression: CompiledExpression }[];
  variables: { name: string; expression: CompiledExpression }[];
  validations: Validation[];
  auditAnnotations: { key: string; expression: CompiledExpression }[];
}

/** The longest audit annotation value kept (maxAuditAnnotationValueLength). */
const MAX_AUDIT_VALUE = 10 * 1024;

export function compilePolicy(policy: KubeObject): CompiledPolicy {
  const spec = objectOf(policy.spec);
  const paramKind = spec.paramKind ? objectOf(spec.paramKind) : null;
  const out: CompiledPolicy = {
    name: policy.metadata.name ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    paramKind: paramKind ? { apiVersion: str(paramKind.apiVersion), kind: str(paramKind.kind) } : null,
    configurationError: null,
    matchConditions: [],
    variables: [],
    validations: [],
    auditAnnotations: [],
  };
  const names = policyVariableNames(paramKind !== null);
  const compile = (source: string) => compileExpression(source, names);
  try {
    out.matchConditions = objectsIn(spec.matchConditions).map((c) => ({ name: str(c.name), expression: compile(str(c.expression)) }));
    out.variables = objectsIn(spec.variables).map((v) => ({ name: str(v.name), expression: compile(str(v.expression)) }));
    out.validations = objectsIn(spec.validations).map((v) => ({
      expression: compile(str(v.expression)),
      message: str(v.message),
      messageExpression: v.messageExpression ? compile(str(v.messageExpression)) : null,
      reason: str(v.reason),
    }));
    out.auditAnnotations = objectsIn(spec.auditAnnotations).map((a) => ({ key: str(a.key), expression: compile(str(a.valueExpression)) }));
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    out.configurationError = `compilation failed: ${err.message}`;
  }
  return out;
}

/** The message of a failed validation (validator.Validate): messageExpression's string, else message, else the expression. */
function failureMessage(v: Validation, vars: Record<string, unknown>, authorize: AuthorizeFn | null): string {
  if (v.messageExpression) {
    const result = v.messageExpression.run(vars, authorize);
    if (typeof result === 'string' && result.trim() !== '' && !result.includes('\n')) return result.trim();
  }
  if (v.message) return v.message;
  return `failed expression: ${v.expression.source.trim()}`;
}

/**
 * Evaluates a policy for one request with one param (or none): `vars` holds object, oldObject,
 * request, params, namespaceObject and authorizer as CEL values.
 */
export function evaluatePolicy(policy: CompiledPolicy, vars: Record<string, unknown>, authorize: AuthorizeFn | null): PolicyResult {
  const result: PolicyResult = { decisions: [], auditAnnotations: new Map() };
  const onError = policy.failurePolicy === 'Fail' ? 'deny' : 'admit';
  const match: MatchOutcome = matchConditionsOutcome(policy.matchConditions, policy.failurePolicy, vars, authorize);
  if (match.error !== null) {
    result.decisions.push({ action: onError, message: match.error, reason: '', index: 0 });
    return result;
  }
  if (!match.matches) return result;
  // Composited variables, in order; a later one may read an earlier one.
  const variables = new Map<string, unknown>();
  const scope = { ...vars, variables };
  for (const v of policy.variables) {
    const value = v.expression.run(scope, authorize);
    if (!isCelError(value)) variables.set(v.name, value);
  }
  policy.validations.forEach((v, index) => {
    const value = v.expression.run(scope, authorize);
    if (isCelError(value)) {
      result.decisions.push({ action: onError, message: evaluationError(v.expression.source, value), reason: '', index });
    } else if (value !== true) {
      result.decisions.push({ action: 'deny', message: failureMessage(v, scope, authorize), reason: v.reason || 'Invalid', index });
    }
  });
  for (const a of policy.auditAnnotations) {
    const value = a.expression.run(scope, authorize);
    if (isCelError(value)) {
      if (onError === 'deny') result.decisions.push({ action: 'deny', message: evaluationError(a.expression.source, value), reason: '', index: 0 });
      continue;
    }
    const text = fromCel(value);
    if (typeof text === 'string') result.auditAnnotations.set(a.key, text.slice(0, MAX_AUDIT_VALUE));
  }
  return result;
}
