import type { parse } from '@bufbuild/cel';
import { goRegexpError } from './go-regexp';

type Expr = NonNullable<ReturnType<typeof parse>['expr']>;

/** The expressions directly under one, in source order. */
function children(e: Expr): (Expr | undefined)[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return [k.value.operand];
    case 'callExpr':
      return [k.value.target, ...k.value.args];
    case 'listExpr':
      return [...k.value.elements];
    case 'structExpr':
      return k.value.entries.flatMap((entry) => [entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined, entry.value]);
    case 'comprehensionExpr':
      return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result];
    default:
      return [];
  }
}

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
