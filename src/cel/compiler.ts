import { celEnv, plan, type CelFunc, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { ParsedExpr } from './ast';
import { costFunction, meterLoops, metered } from './cost';
import { PER_CALL_LIMIT } from './cost-limits';
import { kubernetesLibraries } from './library';
import { parseCel, CelParseError } from './parse';
import { planForm } from './plan-form';
import { CelCompileError, celErrorText } from './compile-error';

export { CelCompileError, celErrorText };

/**
 * The one CEL compiler of CRD validation rules, ValidatingAdmissionPolicy,
 * MutatingAdmissionPolicy and webhook matchConditions: kube's base environment
 * (apiserver/pkg/cel/environment/base.go at 1.36: the string extension, Kubernetes' libraries,
 * optional types and two-variable comprehensions) plus what each adds (its variables are each
 * caller's check; its extra libraries are `extra`). Each evaluation is metered within kube's
 * per-call limit (cel.CostLimit(PerCallLimit)).
 */

export type CelEnvironment = ReturnType<typeof celEnv>;

/** The base environment's functions and an environment's own. */
export const celEnvironment = (extra: readonly CelFunc[] = []): CelEnvironment =>
  celEnv({ funcs: [...strings, ...kubernetesLibraries, costFunction, ...extra] });

/** One evaluation: its result, its cost (with what the expression costs outside its loops) and whether that passed the limit. */
export interface Evaluation {
  result: CelResult;
  cost: number;
  exceeded: boolean;
}

export interface CelProgram {
  /** The tree as cel-go's parser gives it, for checkers. */
  parsed: ParsedExpr;
  run(vars: Record<string, unknown>): Evaluation;
}

/** Parses an expression; a syntax or macro error is a CelCompileError in cel-go's form. */
export function parseExpression(source: string): ParsedExpr {
  try {
    return parseCel(source);
  } catch (err) {
    if (err instanceof CelParseError) throw new CelCompileError(celErrorText(source, err.offset, err.celMessage));
    throw err;
  }
}

/** Plans a parsed (and checked) expression; `rewrite` adapts the planner's copy of the tree (object constructions as maps). */
export function planExpression(env: CelEnvironment, parsed: ParsedExpr, rewrite?: (copy: ParsedExpr) => void): CelProgram {
  const copy = structuredClone(parsed);
  rewrite?.(copy);
  const outsideLoops = meterLoops(copy);
  const program = plan(env, planForm(copy));
  return {
    parsed,
    run: (vars) => {
      const evaluation = metered(PER_CALL_LIMIT, () => program(vars as never));
      const cost = evaluation.cost + outsideLoops;
      return { result: evaluation.result, cost, exceeded: evaluation.exceeded || cost > PER_CALL_LIMIT };
    },
  };
}
