import { celFunc, CelScalar, type parse } from '@bufbuild/cel';
import { COST_LIMIT_EXCEEDED } from './cost-limits';

/**
 * CEL's runtime cost, within kube's limits (cost-limits.ts). @bufbuild/cel tracks no cost, so kapi
 * meters what can grow with the input: each comprehension iteration costs the size of its loop
 * (what cel-go charges for the identifiers, selections and calls it evaluates there), each evaluation the size of its expression, and regex calls what
 * cel-go charges for them. An iteration past the limit fails its loop condition, which ends every
 * enclosing loop at once, so an over-budget evaluation stops instead of running to the end.
 */

type Expr = NonNullable<ReturnType<typeof parse>['expr']>;
type Parsed = ReturnType<typeof parse>;

interface Meter {
  spent: number;
  readonly limit: number;
}

let current: Meter | null = null;

/** Adds to the cost of the evaluation under way; past its limit, throws cel-go's error (an evaluation error). */
export function spend(units: number): void {
  if (!current) return;
  current.spent += units;
  if (current.spent > current.limit) throw new Error(COST_LIMIT_EXCEEDED);
}

/** Runs one evaluation with a cost limit: its result, its cost, and whether it went past the limit. */
export function metered<T>(limit: number, run: () => T): { result: T; cost: number; exceeded: boolean } {
  const outer = current;
  const meter: Meter = { spent: 0, limit };
  current = meter;
  try {
    const result = run();
    return { result, cost: meter.spent, exceeded: meter.spent > limit };
  } finally {
    current = outer;
  }
}

const TICK = '@kapi_cost';

/** The function the metered loop conditions call: it spends its first argument and yields its second. */
export const costFunction = celFunc(TICK, [CelScalar.INT, CelScalar.DYN], CelScalar.DYN, (units: bigint, value: unknown) => {
  spend(Number(units));
  return value as never;
});

/** Identifiers, selections and calls of an expression, not counting the loops of comprehensions in it (they meter themselves). */
function weight(e: Expr | undefined): number {
  if (!e) return 0;
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr':
      return 1;
    case 'selectExpr':
      return 1 + weight(k.value.operand);
    case 'callExpr':
      return 1 + weight(k.value.target) + k.value.args.reduce((n, a) => n + weight(a), 0);
    case 'listExpr':
      return 1 + k.value.elements.reduce((n, a) => n + weight(a), 0);
    case 'structExpr':
      return 1 + k.value.entries.reduce((n, entry) => n + weight(entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined) + weight(entry.value), 0);
    case 'comprehensionExpr':
      return weight(k.value.iterRange) + weight(k.value.accuInit) + weight(k.value.result);
    default:
      return 0;
  }
}

/**
 * Rewrites each comprehension's loop condition `c` of a parsed expression into
 * `@kapi_cost(<loop weight>, c)`, and returns the cost of one evaluation outside loops.
 */
export function meterLoops(parsed: Parsed): number {
  let nextId = 1n << 40n;
  const visit = (e: Expr | undefined): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr':
        return visit(k.value.operand);
      case 'callExpr':
        visit(k.value.target);
        return k.value.args.forEach(visit);
      case 'listExpr':
        return k.value.elements.forEach(visit);
      case 'structExpr':
        return k.value.entries.forEach((entry) => {
          if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value);
          visit(entry.value);
        });
      case 'comprehensionExpr': {
        const c = k.value;
        [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].forEach(visit);
        const units = BigInt(Math.max(1, weight(c.loopCondition) + weight(c.loopStep)));
        const condition = c.loopCondition;
        const units_ = { id: nextId++, exprKind: { case: 'constExpr', value: { constantKind: { case: 'int64Value', value: units } } } };
        c.loopCondition = { ...condition!, id: nextId++, exprKind: { case: 'callExpr', value: { function: TICK, args: [units_, condition] } } } as Expr;
        return;
      }
      default:
        return;
    }
  };
  visit(parsed.expr);
  return weight(parsed.expr);
}
