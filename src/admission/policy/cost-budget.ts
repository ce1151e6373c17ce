import type { CelResult } from '@bufbuild/cel';
import { RUNTIME_CEL_COST_BUDGET } from '../../cel/cost-limits';
import type { AuthorizeFn } from './authorizer-library';
import type { CompiledExpression } from './cel-expression';
import type { CompositedVariables } from './composited-variables';

/**
 * kube's runtime cost budgets of admission CEL (apiserver/pkg/apis/cel/config.go): one policy
 * evaluation's validations share RuntimeCELCostBudget (and its messageExpressions what they
 * leave), its audit annotations and each mutation get one of their own, and the matchConditions
 * of a webhook or policy share RuntimeCELCostBudgetMatchConditions. Each expression is charged as
 * plugin/cel activation.Evaluate charges it: first the composited variables it makes evaluate,
 * then its own cost; past what is left, no further expression runs.
 */

export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;

/** activation.Evaluate's error (cel.ErrOutOfBudget) once a budget is spent. */
export class CostBudgetExceeded extends Error {
  constructor() {
    super('validation failed due to running out of cost budget, no further validation rules will be run');
  }
}

export class CostBudget {
  constructor(private remaining: number = RUNTIME_CEL_COST_BUDGET) {}

  /** The expression's result; throws CostBudgetExceeded when it (or the variables it reads first) spends more than is left. */
  evaluate(expression: CompiledExpression, vars: Record<string, unknown>, authorize: AuthorizeFn | null, variables?: CompositedVariables): CelResult {
    if (variables) this.charge(variables.prepare(expression));
    const { result, cost } = expression.measure(vars, authorize);
    this.charge(cost);
    return result;
  }

  private charge(cost: number): void {
    if (cost > this.remaining) throw new CostBudgetExceeded();
    this.remaining -= cost;
  }
}
