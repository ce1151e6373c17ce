import type { CelResult } from '@bufbuild/cel';
import { aggregateMessage } from '../../api/field-errors';
import type { AuthorizeFn } from './authorizer-library';
import { evaluationError, isCelError, type CompiledExpression } from './cel';
import { CostBudget, CostBudgetExceeded, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS } from './cost-budget';

export interface MatchOutcome {
  matches: boolean;
  /** Set when a condition failed to evaluate, none was false, and the failure policy is Fail. */
  error: string | null;
}

/**
 * matchconditions.Matcher.Match: a condition that is false skips the webhook or policy, whatever
 * else errs; otherwise errors, or the conditions spending more than their budget together, are
 * a refusal under failurePolicy Fail and a skip under Ignore.
 */
export function matchConditionsOutcome(
  conditions: readonly { name: string; expression: CompiledExpression }[],
  failurePolicy: 'Fail' | 'Ignore',
  vars: Record<string, unknown>,
  authorize: AuthorizeFn | null,
): MatchOutcome {
  // every condition runs before any result counts, within one budget (matcher.Match's filter.ForInput)
  const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS);
  let values: CelResult[];
  try {
    values = conditions.map((c) => budget.evaluate(c.expression, vars, authorize));
  } catch (err) {
    if (!(err instanceof CostBudgetExceeded)) throw err;
    return { matches: false, error: failurePolicy === 'Fail' ? err.message : null };
  }
  const errors: string[] = [];
  for (const [i, c] of conditions.entries()) {
    const value = values[i];
    if (isCelError(value) || typeof value !== 'boolean') {
      errors.push(isCelError(value) ? evaluationError(c.expression.source, value) : `expression '${c.expression.source}' resulted in a non-boolean value`);
      continue;
    }
    if (!value) return { matches: false, error: null };
  }
  if (errors.length === 0) return { matches: true, error: null };
  return failurePolicy === 'Fail' ? { matches: false, error: aggregateMessage(errors) } : { matches: false, error: null };
}
