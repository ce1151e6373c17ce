import { children, type Expr } from './ast';
import { goRegexpError } from './go-regexp';

/**
 * cel-go's ValidateRegexLiterals, which kube's base environment runs since 1.29: the id of the
 * first string literal given as `x.matches(<literal>)` that Go's regexp rejects (the checker reports
 * "invalid matches argument" there), or null.
 */
export function invalidMatchesLiteral(root: Expr | undefined): bigint | null {
  const pending: (Expr | undefined)[] = [root];
  while (pending.length > 0) {
    const e = pending.pop();
    if (!e) continue;
    const k = e.exprKind;
    if (k.case === 'callExpr' && k.value.function === 'matches' && k.value.target) {
      const literal = k.value.args[0];
      const constant = literal?.exprKind.case === 'constExpr' ? literal.exprKind.value.constantKind : undefined;
      if (constant?.case === 'stringValue' && goRegexpError(constant.value) !== null) return literal!.id;
    }
    pending.push(...children(e).reverse());
  }
  return null;
}

/** The functions whose constant pattern cel-go compiles when it builds the program (MatchesRegexOptimization, kube's Find/FindAllRegexOptimization). */
const COMPILED_AT_PLANNING = new Set(['matches', 'find', 'findAll']);

/**
 * Go's error for the first constant pattern of `matches`, `find` or `findAll` that does not
 * compile: cel-go compiles them when it creates the program, so kube refuses such a rule
 * ("program instantiation failed: ...") even where the checker let it pass.
 */
export function constantPatternError(root: Expr | undefined): string | null {
  const pending: (Expr | undefined)[] = [root];
  while (pending.length > 0) {
    const e = pending.pop();
    if (!e) continue;
    const k = e.exprKind;
    if (k.case === 'callExpr' && COMPILED_AT_PLANNING.has(k.value.function)) {
      // the pattern is the second argument counting the receiver
      const pattern = k.value.target ? k.value.args[0] : k.value.args[1];
      const constant = pattern?.exprKind.case === 'constExpr' ? pattern.exprKind.value.constantKind : undefined;
      const error = constant?.case === 'stringValue' ? goRegexpError(constant.value) : null;
      if (error !== null) return error;
    }
    pending.push(...children(e).reverse());
  }
  return null;
}
