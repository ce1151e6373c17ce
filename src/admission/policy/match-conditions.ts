import { aggregateMessage } from '../../api/field-errors';
import type { AuthorizeFn } from './authorizer-library';
import { evaluationError, isCelError, type CompiledExpression } from './cel';

export interface MatchOutcome {
  matches: boolean;
  /** Set when a condition failed to evaluate, none was false, and the failure policy is Fail. */
  error: string | null;
}

/**
 * matchconditions.Matcher.Match: a condition that is false skips the webhook or policy, whatever
 * else errs; otherwise errors are a refusal under failurePolicy Fail and a skip under Ignore.
 */
export function matchConditionsOutcome(
  conditions: readonly { name: string; expression: CompiledExpression }[],
  failurePolicy: 'Fail' | 'Ignore',
  vars: Record<string, unknown>,
  authorize: AuthorizeFn | null,
): MatchOutcome {
  const errors: string[] = [];
  for (const c of conditions) {
    const value = c.expression.run(vars, authorize);
    if (isCelError(value) || typeof value !== 'boolean') {
      errors.push(isCelError(value) ? evaluationError(c.expression.source, value) : `expression '${c.expression.source}' resulted in a non-boolean value`);
      continue;
    }
    if (!value) return { matches: false, error: null };
  }
  if (errors.length === 0) return { matches: true, error: null };
  return failurePolicy === 'Fail' ? { matches: false, error: aggregateMessage(errors) } : { matches: false, error: null };
}
