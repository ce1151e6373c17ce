import { ExprFactory, type Expr, type ParsedExpr } from './ast';
import { ITERATION_PAIRS } from './library/comprehensions';
import { OPTIONAL_ELEMENT, OPTIONAL_ENTRY, OPTIONAL_INDEX, OPTIONAL_SELECT } from './library/optional';

/**
 * @bufbuild/cel's planner evaluates one-variable comprehensions and has no optional values of its
 * own, so the tree cel/parse.ts gives is rewritten, for planning only, into what it evaluates:
 *
 *  - a two-variable comprehension iterates `@iteration_pairs(range)` ((index, element) or
 *    (key, value) pairs) and binds its two variables from each pair around its condition and step
 *    (a binding is cel.bind's empty comprehension);
 *  - `a.?f`, `a[?i]`, and a select or index on their result (cel-go's applyQualifiers: once
 *    optional, the rest of the chain is) call `@optional_select` and `@optional_index`;
 *  - a list with optional elements concatenates its runs of plain elements with
 *    `@optional_element(e)` (empty or one element), a map with optional entries adds each
 *    through `@optional_entry(map, k, v)`.
 *
 * The checker and cost metering read the tree before this rewrite.
 */

const PAIR = '@pair';
const UNUSED = '@unused';

/** The parsed expression rewritten, in place, as the planner evaluates it. */
export function planForm(copy: ParsedExpr): ParsedExpr {
  const factory = new ExprFactory(copy);
  const at = (e: Expr): number => factory.positions[String(e.id)] ?? 0;
  const optionalCalls = new Set([OPTIONAL_SELECT, OPTIONAL_INDEX]);
  const isOptionalChain = (e: Expr | undefined): boolean => e?.exprKind.case === 'callExpr' && optionalCalls.has(e.exprKind.value.function);

  const bind = (name: string, value: Expr, body: Expr): Expr =>
    factory.comprehension(at(body), {
      iterRange: factory.list(at(body), []),
      iterVar: UNUSED,
      iterVar2: '',
      accuVar: name,
      accuInit: value,
      loopCondition: factory.constant(at(body), { case: 'boolValue', value: false }),
      loopStep: factory.ident(at(body), name),
      result: body,
    });
  const pairPart = (offset: number, index: bigint): Expr =>
    factory.call(offset, '_[_]', [factory.ident(offset, PAIR), factory.constant(offset, { case: 'int64Value', value: index })]);

  const rewrite = (e: Expr | undefined): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr': {
        rewrite(k.value.operand);
        if (!k.value.testOnly && isOptionalChain(k.value.operand)) {
          const name = factory.constant(at(e), { case: 'stringValue', value: k.value.field });
          e.exprKind = factory.call(at(e), OPTIONAL_SELECT, [k.value.operand!, name]).exprKind;
        }
        return;
      }
      case 'callExpr': {
        rewrite(k.value.target);
        k.value.args.forEach(rewrite);
        if (k.value.function === '_?._') k.value.function = OPTIONAL_SELECT;
        else if (k.value.function === '_[?_]' || (k.value.function === '_[_]' && isOptionalChain(k.value.args[0]))) k.value.function = OPTIONAL_INDEX;
        return;
      }
      case 'listExpr': {
        k.value.elements.forEach(rewrite);
        if (k.value.optionalIndices.length === 0) return;
        const optional = new Set(k.value.optionalIndices);
        const runs: Expr[] = [];
        let plain: Expr[] = [];
        k.value.elements.forEach((element, i) => {
          if (!optional.has(i)) {
            plain.push(element);
            return;
          }
          if (plain.length > 0) runs.push(factory.list(at(e), plain));
          plain = [];
          runs.push(factory.call(at(element), OPTIONAL_ELEMENT, [element]));
        });
        if (plain.length > 0) runs.push(factory.list(at(e), plain));
        e.exprKind = runs.reduce((sum, run) => factory.call(at(e), '_+_', [sum, run])).exprKind;
        return;
      }
      case 'structExpr': {
        k.value.entries.forEach((entry) => {
          if (entry.keyKind.case === 'mapKey') rewrite(entry.keyKind.value);
          rewrite(entry.value);
        });
        const optional = k.value.entries.filter((entry) => entry.optionalEntry && entry.keyKind.case === 'mapKey');
        if (optional.length === 0) return;
        const base = factory.map(at(e));
        if (base.exprKind.case === 'structExpr') base.exprKind.value.entries = k.value.entries.filter((entry) => !optional.includes(entry));
        e.exprKind = optional.reduce((map, entry) => factory.call(at(e), OPTIONAL_ENTRY, [map, entry.keyKind.value as Expr, entry.value!]), base).exprKind;
        return;
      }
      case 'comprehensionExpr': {
        const c = k.value;
        [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].forEach(rewrite);
        if (!c.iterVar2) return;
        const offset = at(e);
        const bound = (body: Expr): Expr => bind(c.iterVar, pairPart(offset, 0n), bind(c.iterVar2, pairPart(offset, 1n), body));
        c.iterRange = factory.call(offset, ITERATION_PAIRS, [c.iterRange!]);
        c.loopCondition = bound(c.loopCondition!);
        c.loopStep = bound(c.loopStep!);
        c.iterVar = PAIR;
        c.iterVar2 = '';
        return;
      }
      default:
        return;
    }
  };
  rewrite(copy.expr);
  return copy;
}
