import type { CelResult } from '@bufbuild/cel';
import { applyPatch, JsonPatchError, type Operation } from 'fast-json-patch';
import { objectOf, objectsIn, stringOf as str } from '../../api/json-read';
import { isPlainObject, type KubeObject } from '../../api/types';
import { merge } from '../../schema/typed-ops';
import type { ObjectNode } from '../../schema/typed-schema';
import type { AuthorizeFn } from './authorizer-library';
import { CelCompileError, compileExpression, evaluationError, fromCel, isCelError, type CompiledExpression } from './cel';
import { policyVariableNames, type FailurePolicy } from './compiled-policy';
import { CompositedVariables } from './composited-variables';
import { CostBudget, CostBudgetExceeded } from './cost-budget';
import { matchConditionsOutcome } from './match-conditions';
import { jsonClone } from '../../api/json-clone';

/**
 * A MutatingAdmissionPolicy compiled once per resourceVersion, and one invocation of it
 * (k8s.io/apiserver's policy/mutating: compilePolicy, and the JSONPatch and ApplyConfiguration
 * patchers): matchConditions, then variables, then each mutation against the object as the
 * previous one left it.
 */

/** The variables of a mutating policy's expressions: those of validating policies. */
export function mutatingPolicyVariableNames(hasParams: boolean): string[] {
  return policyVariableNames(hasParams);
}

interface Mutation {
  patchType: 'JSONPatch' | 'ApplyConfiguration';
  expression: CompiledExpression;
}

export interface CompiledMutatingPolicy {
  name: string;
  failurePolicy: FailurePolicy;
  reinvocationPolicy: 'Never' | 'IfNeeded';
  paramKind: { apiVersion: string; kind: string } | null;
  configurationError: string | null;
  matchConditions: { name: string; expression: CompiledExpression }[];
  variables: { name: string; expression: CompiledExpression }[];
  mutations: Mutation[];
}

export function compileMutatingPolicy(policy: KubeObject): CompiledMutatingPolicy {
  const spec = objectOf(policy.spec);
  const paramKind = isPlainObject(spec.paramKind) ? spec.paramKind : null;
  const out: CompiledMutatingPolicy = {
    name: policy.metadata.name ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    reinvocationPolicy: spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    paramKind: paramKind ? { apiVersion: str(paramKind.apiVersion), kind: str(paramKind.kind) } : null,
    configurationError: null,
    matchConditions: [],
    variables: [],
    mutations: [],
  };
  const names = mutatingPolicyVariableNames(paramKind !== null);
  try {
    out.matchConditions = objectsIn(spec.matchConditions).map((c) => ({ name: str(c.name), expression: compileExpression(str(c.expression), names) }));
    out.variables = objectsIn(spec.variables).map((v) => ({ name: str(v.name), expression: compileExpression(str(v.expression), names) }));
    out.mutations = objectsIn(spec.mutations).map((m) => {
      const patchType = m.patchType === 'JSONPatch' ? 'JSONPatch' : 'ApplyConfiguration';
      const source = str(objectOf(patchType === 'JSONPatch' ? m.jsonPatch : m.applyConfiguration).expression);
      return { patchType, expression: compileExpression(source, names, { objectConstruction: true }) };
    });
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    out.configurationError = `compilation failed: ${err.message}`;
  }
  return out;
}

/** A failed invocation (an expression that errs, a patch that does not apply): it meets the policy's failurePolicy. */
export class MutationError extends Error {}

/** One JSONPatch value: op, path, value and from (jsonpatch.JSONPatchType's fields). */
function jsonPatchOperations(result: unknown): Operation[] {
  const value = fromCel(result);
  if (!Array.isArray(value)) throw new MutationError('JSONPatchType expression must return an array of JSONPatch');
  return value.map((item) => {
    const op = objectOf(item);
    if (!str(op.op)) throw new MutationError('JSONPatch.op is required');
    if (!str(op.path) && op.path !== '') throw new MutationError('JSONPatch.path is required');
    return op as unknown as Operation;
  });
}

/** RFC 6902 as kube's patcher applies it: a failed `test` leaves the object as it was (jsonpatch.ErrTestFailed). */
function applyOperations(object: KubeObject, operations: Operation[]): KubeObject {
  try {
    return applyPatch(jsonClone(object), operations, true, false).newDocument;
  } catch (err) {
    if (err instanceof JsonPatchError && err.name === 'TEST_OPERATION_FAILED') return object;
    if (err instanceof JsonPatchError || err instanceof TypeError) throw new MutationError(`JSON Patch: ${err.message.split('\n')[0]}`);
    throw err;
  }
}

/** Maps and lists merged by the kind's schema as server-side apply merges; without one, maps deeply and lists whole. */
function mergeApplied(live: unknown, config: unknown, schema: ObjectNode | null): unknown {
  if (schema) return merge(live, config, schema);
  if (!isPlainObject(live) || !isPlainObject(config)) return jsonClone(config);
  const out: Record<string, unknown> = { ...live };
  for (const [key, value] of Object.entries(config)) {
    if (value === null) delete out[key];
    else out[key] = mergeApplied(live[key], value, null);
  }
  return out;
}

/**
 * Runs the policy for one binding and param. `variablesFor(object)` gives the CEL variables
 * with `object` as the given one; each mutation sees what the previous ones made. Returns the
 * mutated object, or null when matchConditions skip the policy; throws MutationError.
 */
export function invokeMutatingPolicy(
  policy: CompiledMutatingPolicy,
  object: KubeObject,
  variablesFor: (object: KubeObject) => Record<string, unknown>,
  schema: ObjectNode | null,
  authorize: AuthorizeFn | null,
): KubeObject | null {
  const vars = variablesFor(object);
  const match = matchConditionsOutcome(policy.matchConditions, policy.failurePolicy, vars, authorize);
  if (match.error !== null) throw new MutationError(match.error);
  if (!match.matches) return null;
  // Composited variables, evaluated once per invocation when first read; each mutation has a cost budget of its own (dispatchOne).
  const variables = new CompositedVariables(policy.variables, vars, authorize);
  let current = object;
  for (const mutation of policy.mutations) {
    let result: CelResult;
    try {
      result = new CostBudget().evaluate(mutation.expression, { ...variablesFor(current), variables: variables.values }, authorize, variables);
    } catch (err) {
      if (err instanceof CostBudgetExceeded) throw new MutationError(err.message);
      throw err;
    }
    if (isCelError(result)) throw new MutationError(evaluationError(mutation.expression.source, result));
    if (mutation.patchType === 'JSONPatch') {
      current = applyOperations(current, jsonPatchOperations(result));
    } else {
      const config = fromCel(result);
      if (!isPlainObject(config)) throw new MutationError('ApplyConfiguration expression must return an Object');
      current = mergeApplied(current, config, schema) as KubeObject;
    }
  }
  return current;
}
