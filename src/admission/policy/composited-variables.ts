import { walk, type Expr } from '../../cel/ast';
import type { AuthorizeFn } from './authorizer-library';
import { isCelError } from './cel';
import type { CompiledExpression } from './cel-expression';

/**
 * A policy's `variables` for one evaluation, as kube's composition context serves them
 * (plugin/cel composition.go): each evaluated at most once, when the first expression reading
 * it runs, its cost charged to that expression. cel-go evaluates a variable when an evaluation
 * reaches it; kapi evaluates, before an expression runs, the variables its tree names
 * (`variables.<name>`, or all of them where `variables` is read whole) and those they name in
 * turn, in declaration order. One that errs is absent, so reading it errs.
 */

type Reads = ReadonlySet<string> | 'all';

const readsCache = new WeakMap<CompiledExpression, Reads>();

/** The string a field or index names, when it is a literal. */
function literalName(e: Expr | undefined): string | null {
  const c = e?.exprKind.case === 'constExpr' ? e.exprKind.value.constantKind : undefined;
  return c?.case === 'stringValue' ? c.value : null;
}

const isVariables = (e: Expr | undefined): boolean => e?.exprKind.case === 'identExpr' && e.exprKind.value.name === 'variables';

/** The variables an expression names: selections, optional selections and indexing of `variables` by a literal. */
function reads(expression: CompiledExpression): Reads {
  const cached = readsCache.get(expression);
  if (cached) return cached;
  const names = new Set<string>();
  const named = new Set<Expr>();
  let all = false;
  for (const e of walk(expression.parsed.expr)) {
    const k = e.exprKind;
    if (k.case === 'selectExpr' && isVariables(k.value.operand)) {
      names.add(k.value.field);
      named.add(k.value.operand!);
    } else if (k.case === 'callExpr' && ['_[_]', '_[?_]', '_?._'].includes(k.value.function) && isVariables(k.value.args[0])) {
      const name = literalName(k.value.args[1]);
      if (name === null) all = true;
      else names.add(name);
      named.add(k.value.args[0]);
    } else if (isVariables(e) && !named.has(e)) {
      all = true;
    }
  }
  const result: Reads = all ? 'all' : names;
  readsCache.set(expression, result);
  return result;
}

export class CompositedVariables {
  readonly values = new Map<string, unknown>();
  private readonly started = new Set<string>();
  private readonly scope: Record<string, unknown>;

  constructor(
    private readonly definitions: readonly { name: string; expression: CompiledExpression }[],
    vars: Record<string, unknown>,
    private readonly authorize: AuthorizeFn | null,
  ) {
    this.scope = { ...vars, variables: this.values };
  }

  /** Evaluates what `expression` reads that is not evaluated yet; returns what that cost. */
  prepare(expression: CompiledExpression): number {
    const wanted = reads(expression);
    let cost = 0;
    for (const definition of this.definitions) {
      if (this.started.has(definition.name) || (wanted !== 'all' && !wanted.has(definition.name))) continue;
      this.started.add(definition.name);
      cost += this.prepare(definition.expression);
      const evaluation = definition.expression.measure(this.scope, this.authorize);
      cost += evaluation.cost;
      if (!isCelError(evaluation.result)) this.values.set(definition.name, evaluation.result);
    }
    return cost;
  }
}
