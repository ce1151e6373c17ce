import type { CelResult } from '@bufbuild/cel';
import { objectOf, objectsIn, stringOf as str } from '../../api/json-read';
import type { KubeObject } from '../../api/types';
import type { AuthorizeFn } from './authorizer-library';
import { CelCompileError, compileExpression, evaluationError, fromCel, isCelError, type CompiledExpression } from './cel';
import { CompositedVariables } from './composited-variables';
import { CostBudget, CostBudgetExceeded } from './cost-budget';
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
function failureMessage(v: Validation, custom: CelResult | undefined): string {
  if (typeof custom === 'string' && custom.trim() !== '' && !custom.includes('\n')) return custom.trim();
  if (v.message) return v.message;
  return `failed expression: ${v.expression.source.trim()}`;
}

/** A result that is one error decision: what validator.Validate returns when a filter runs out of budget. */
function failed(action: PolicyDecision['action'], message: string): PolicyResult {
  return { decisions: [{ action, message, reason: '', index: 0 }], auditAnnotations: new Map() };
}

/** What `each` returns, or the CostBudgetExceeded it threw. */
function withinBudget<T>(each: () => T): T | CostBudgetExceeded {
  try {
    return each();
  } catch (err) {
    if (err instanceof CostBudgetExceeded) return err;
    throw err;
  }
}

/**
 * Evaluates a policy for one request with one param (or none): `vars` holds object, oldObject,
 * request, params, namespaceObject and authorizer as CEL values. The validations share one cost
 * budget, then every messageExpression runs with what they left; the audit annotations have a
 * budget of their own. Running out of either is one error decision (under the failurePolicy).
 */
export function evaluatePolicy(policy: CompiledPolicy, vars: Record<string, unknown>, authorize: AuthorizeFn | null): PolicyResult {
  const result: PolicyResult = { decisions: [], auditAnnotations: new Map() };
  const onError = policy.failurePolicy === 'Fail' ? 'deny' : 'admit';
  const match: MatchOutcome = matchConditionsOutcome(policy.matchConditions, policy.failurePolicy, vars, authorize);
  if (match.error !== null) return failed(onError, match.error);
  if (!match.matches) return result;
  const variables = new CompositedVariables(policy.variables, vars, authorize);
  const scope = { ...vars, variables: variables.values };
  const budget = new CostBudget();
  const values = withinBudget(() => policy.validations.map((v) => budget.evaluate(v.expression, scope, authorize, variables)));
  if (values instanceof CostBudgetExceeded) return failed(onError, values.message);
  const messages: (CelResult | undefined)[] = [];
  const messagesSpent = withinBudget(() =>
    policy.validations.forEach((v, i) => {
      if (v.messageExpression) messages[i] = budget.evaluate(v.messageExpression, scope, authorize, variables);
    }),
  );
  policy.validations.forEach((v, index) => {
    const value = values[index];
    if (isCelError(value)) {
      result.decisions.push({ action: onError, message: evaluationError(v.expression.source, value), reason: '', index });
    } else if (messagesSpent instanceof CostBudgetExceeded) {
      // kube: every validation that did not err becomes the messageExpressions' error
      result.decisions.push({ action: onError, message: `failed messageExpression: ${messagesSpent.message}`, reason: '', index });
    } else if (value !== true) {
      result.decisions.push({ action: 'deny', message: failureMessage(v, messages[index]), reason: v.reason || 'Invalid', index });
    }
  });
  const auditBudget = new CostBudget();
  const annotations = withinBudget(() => policy.auditAnnotations.map((a) => auditBudget.evaluate(a.expression, scope, authorize, variables)));
  if (annotations instanceof CostBudgetExceeded) return failed(onError, annotations.message);
  policy.auditAnnotations.forEach((a, i) => {
    const value = annotations[i];
    if (isCelError(value)) {
      if (onError === 'deny') result.decisions.push({ action: 'deny', message: evaluationError(a.expression.source, value), reason: '', index: 0 });
      return;
    }
    const text = fromCel(value);
    if (typeof text === 'string') result.auditAnnotations.set(a.key, text.slice(0, MAX_AUDIT_VALUE));
  });
  return result;
}
