import { compileExpression, fromCel, isCelError, toCel } from '../../admission/policy/cel';

/** Evaluates an admission expression as kapi's policies do; an error is returned as `{ error: message }`. */
export function evaluate(source: string, vars: Record<string, unknown> = {}): unknown {
  const result = compileExpression(source, Object.keys(vars)).run(Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, toCel(v)])), null);
  return isCelError(result) ? { error: result.message } : fromCel(result);
}
