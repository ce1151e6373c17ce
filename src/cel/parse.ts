import { parse } from '@bufbuild/cel';
import { ExprFactory, walk, type Expr, type ParsedExpr } from './ast';
import { SORT_BY_ASSOCIATED_KEYS } from './library/ext-lists';

/**
 * CEL's parser as kube's environments configure cel-go's: @bufbuild/cel's grammar, plus the
 * optional syntax of cel.OptionalTypes (base environment from 1.28) and the two-variable macros of
 * ext.TwoVarComprehensions (from 1.32). The result has cel-go's tree for them:
 *
 *  - `a.?f` is the call `_?._(a, "f")`, `a[?i]` the call `_[?_](a, i)`;
 *  - `[?x]` sets the element's index in the list's `optionalIndices`, `{?k: v}` and `Msg{?f: v}`
 *    the entry's `optionalEntry`;
 *  - `r.all(i, v, p)`, `exists`, `existsOne` (`exists_one`), `transformList`, `transformMap` and
 *    `transformMapEntry` are comprehensions with `iterVar2` set, built as ext/comprehensions.go
 *    builds them (transformMap steps call `cel.@mapInsert(accu, key, value)`, transformMapEntry
 *    `cel.@mapInsert(accu, entryMap)`);
 *  - `l.sortBy(e, key)` of ext.Lists (from 1.34) is the binding ext/lists.go's sortByMacro builds;
 *  - `o.optMap(v, e)` and `o.optFlatMap(v, e)` of cel.OptionalTypes are the conditionals its
 *    optMap and optFlatMap macros build.
 *
 * The grammar has no `?` markers, so each is first blanked out of the source (a space, which the
 * grammar allows there, so every offset stays the source's) and remembered by the token before it;
 * once parsed, the node that token starts gets its optional form. A `?` after `.`, `[`, `{` or `,`
 * can only be such a marker (a conditional's `?` follows an operand).
 */

/** A parse failure at a source offset, with cel-go's message ("Syntax error: ...", or a macro's). */
export class CelParseError extends Error {
  constructor(
    readonly offset: number,
    readonly celMessage: string,
    message: string = celMessage,
  ) {
    super(message);
  }
}

type Mark =
  | { kind: 'select'; dot: number; at: number }
  | { kind: 'bracket'; open: number; at: number }
  | { kind: 'element'; open: number; index: number; at: number }
  | { kind: 'entry'; open: number; index: number; at: number };

interface Open {
  char: string;
  offset: number;
  commas: number;
}

const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/** The end of the string literal whose quote is at `start` (after its closing quote). */
function stringEnd(source: string, start: number, raw: boolean): number {
  const quote = source.startsWith(source[start].repeat(3), start) ? source[start].repeat(3) : source[start];
  let i = start + quote.length;
  while (i < source.length) {
    if (!raw && source[i] === '\\') i += 2;
    else if (source.startsWith(quote, i)) return i + quote.length;
    else i++;
  }
  return source.length;
}

/** The source with each optional marker blanked, and where each was. */
export function blankOptionalMarkers(source: string): { text: string; marks: Mark[] } {
  const chars = source.split('');
  const marks: Mark[] = [];
  const stack: Open[] = [];
  let previous: { char: string; offset: number } | null = null;
  const text = source;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (c === '"' || c === "'") {
      const prefix = /(?:^|[^A-Za-z0-9_])([rRbB]{1,2})$/.exec(text.slice(Math.max(0, i - 3), i))?.[1] ?? '';
      i = stringEnd(text, i, /[rR]/.test(prefix));
      previous = { char: c, offset: i - 1 };
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === '?' && previous) {
      const mark: Mark | null =
        previous.char === '.'
          ? { kind: 'select', dot: previous.offset, at: i }
          : previous.char === '['
            ? { kind: 'bracket', open: previous.offset, at: i }
            : previous.char === '{' && top
              ? { kind: 'entry', open: top.offset, index: 0, at: i }
              : previous.char === ',' && top?.char === '['
                ? { kind: 'element', open: top.offset, index: top.commas, at: i }
                : previous.char === ',' && top?.char === '{'
                  ? { kind: 'entry', open: top.offset, index: top.commas, at: i }
                  : null;
      if (mark) {
        marks.push(mark);
        chars[i] = ' ';
        i++;
        continue;
      }
    }
    if (c === '(' || c === '[' || c === '{') stack.push({ char: c, offset: i, commas: 0 });
    else if (c in CLOSERS && top?.char === CLOSERS[c]) stack.pop();
    else if (c === ',' && top) top.commas++;
    previous = { char: c, offset: i };
    i++;
  }
  return { text: chars.join(''), marks };
}

/** Where each expression starts in the source, by kind: the nodes a marker's token starts. */
function nodesAt(parsed: ParsedExpr, source: string): Map<number, Expr[]> {
  const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const out = new Map<number, Expr[]>();
  for (const e of walk(parsed.expr)) {
    let offset = positions[String(e.id)];
    if (offset === undefined) continue;
    // a message construction starts at its name; its entries open at its brace
    if (e.exprKind.case === 'structExpr' && e.exprKind.value.messageName) offset = source.indexOf('{', offset);
    out.set(offset, [...(out.get(offset) ?? []), e]);
  }
  return out;
}

/** Gives the marked nodes their optional form; false when a marker is where cel-go's grammar has none. */
function applyMark(mark: Mark, nodes: Map<number, Expr[]>, factory: ExprFactory): boolean {
  const at = (offset: number) => nodes.get(offset) ?? [];
  switch (mark.kind) {
    case 'select': {
      const e = at(mark.dot).find((n) => n.exprKind.case === 'selectExpr' && !n.exprKind.value.testOnly);
      if (e?.exprKind.case !== 'selectExpr') return false;
      const { operand, field } = e.exprKind.value;
      const name = factory.constant(mark.at + 1, { case: 'stringValue', value: field });
      e.exprKind = { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: '_?._', args: [operand!, name] } } as Expr['exprKind'];
      return true;
    }
    case 'bracket': {
      for (const e of at(mark.open)) {
        if (e.exprKind.case === 'callExpr' && e.exprKind.value.function === '_[_]') {
          e.exprKind.value.function = '_[?_]';
          return true;
        }
      }
      return applyMark({ kind: 'element', open: mark.open, index: 0, at: mark.at }, nodes, factory);
    }
    case 'element': {
      const e = at(mark.open).find((n) => n.exprKind.case === 'listExpr');
      if (e?.exprKind.case !== 'listExpr' || mark.index >= e.exprKind.value.elements.length) return false;
      e.exprKind.value.optionalIndices = [...e.exprKind.value.optionalIndices, mark.index].sort((a, b) => a - b);
      return true;
    }
    case 'entry': {
      const e = at(mark.open).find((n) => n.exprKind.case === 'structExpr');
      const entry = e?.exprKind.case === 'structExpr' ? e.exprKind.value.entries[mark.index] : undefined;
      if (!entry) return false;
      entry.optionalEntry = true;
      return true;
    }
  }
}

const QUANTIFIERS = new Set(['all', 'exists', 'existsOne', 'exists_one']);
const TRANSFORMS = new Set(['transformList', 'transformMap', 'transformMapEntry']);
/** cel-go's accumulator names (AccuIdentName, and the older parser.AccumulatorName), which iteration variables may not take. */
const ACCUMULATOR = '@result';
const ACCUMULATOR_NAMES = new Set([ACCUMULATOR, '__result__']);

/** ext/comprehensions.go extractIterVars: the two variable names, or the macro's error at the offending argument. */
function iterationVariables(args: Expr[], positions: Record<string, number>): [string, string] {
  const names = args.slice(0, 2).map((arg) => {
    if (arg.exprKind.case !== 'identExpr') throw new CelParseError(positions[String(arg.id)] ?? 0, 'argument must be a simple name');
    return arg.exprKind.value.name;
  });
  const [first, second] = names;
  if (first === second) throw new CelParseError(positions[String(args[1].id)] ?? 0, `duplicate variable name: ${first}`);
  names.forEach((name, i) => {
    if (ACCUMULATOR_NAMES.has(name)) throw new CelParseError(positions[String(args[i].id)] ?? 0, 'iteration variable overwrites accumulator variable');
  });
  return [first, second];
}

/** The comprehension a two-variable macro call expands to (ext/comprehensions.go), or null for any other call. */
function expandTwoVariableMacro(e: Expr, factory: ExprFactory): Expr['exprKind'] | null {
  if (e.exprKind.case !== 'callExpr' || !e.exprKind.value.target) return null;
  const { function: fn, args, target } = e.exprKind.value;
  const arity = QUANTIFIERS.has(fn) ? args.length === 3 : TRANSFORMS.has(fn) && (args.length === 3 || args.length === 4);
  if (!arity) return null;
  const [iterVar, iterVar2] = iterationVariables(args, factory.positions);
  const at = factory.positions[String(e.id)] ?? 0;
  const accu = () => factory.ident(at, ACCUMULATOR);
  const bool = (value: boolean) => factory.constant(at, { case: 'boolValue', value });
  const int = (value: bigint) => factory.constant(at, { case: 'int64Value', value });
  const [filter, transform] = args.length === 4 ? [args[2], args[3]] : [null, args[2]];
  const filtered = (step: Expr) => (filter ? factory.call(at, '_?_:_', [filter, step, accu()]) : step);
  let parts: { accuInit: Expr; loopCondition: Expr; loopStep: Expr; result: Expr };
  switch (fn) {
    case 'all':
      parts = {
        accuInit: bool(true),
        loopCondition: factory.call(at, '@not_strictly_false', [accu()]),
        loopStep: factory.call(at, '_&&_', [accu(), args[2]]),
        result: accu(),
      };
      break;
    case 'exists':
      parts = {
        accuInit: bool(false),
        loopCondition: factory.call(at, '@not_strictly_false', [factory.call(at, '!_', [accu()])]),
        loopStep: factory.call(at, '_||_', [accu(), args[2]]),
        result: accu(),
      };
      break;
    case 'existsOne':
    case 'exists_one':
      parts = {
        accuInit: int(0n),
        loopCondition: bool(true),
        loopStep: factory.call(at, '_?_:_', [args[2], factory.call(at, '_+_', [accu(), int(1n)]), accu()]),
        result: factory.call(at, '_==_', [accu(), int(1n)]),
      };
      break;
    case 'transformList':
      parts = {
        accuInit: factory.list(at, []),
        loopCondition: bool(true),
        loopStep: filtered(factory.call(at, '_+_', [accu(), factory.list(at, [transform])])),
        result: accu(),
      };
      break;
    case 'transformMap':
      parts = {
        accuInit: factory.map(at),
        loopCondition: bool(true),
        loopStep: filtered(factory.call(at, MAP_INSERT, [accu(), factory.ident(at, iterVar), transform])),
        result: accu(),
      };
      break;
    default:
      parts = { accuInit: factory.map(at), loopCondition: bool(true), loopStep: filtered(factory.call(at, MAP_INSERT, [accu(), transform])), result: accu() };
  }
  return {
    case: 'comprehensionExpr',
    value: { $typeName: 'cel.expr.Expr.Comprehension', iterRange: target, iterVar, iterVar2, accuVar: ACCUMULATOR, ...parts },
  } as Expr['exprKind'];
}

/** ext/lists.go sortByMacro's binding of the sorted list. */
const SORT_BY_INPUT = '@__sortBy_input__';
/** The target kinds sortByMacro takes: a list literal, a select, an identifier, a comprehension or a call. */
const SORT_BY_TARGETS = new Set(['listExpr', 'selectExpr', 'identExpr', 'comprehensionExpr', 'callExpr']);

/**
 * ext/lists.go sortByMacro: `l.sortBy(e, key)` binds the list and sorts it by the keys its `map`
 * computes, `cel.bind(@__sortBy_input__, l, @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))`;
 * null for any other call.
 */
function expandSortBy(e: Expr, factory: ExprFactory): Expr['exprKind'] | null {
  if (e.exprKind.case !== 'callExpr' || e.exprKind.value.function !== 'sortBy' || !e.exprKind.value.target || e.exprKind.value.args.length !== 2) return null;
  const { target, args } = e.exprKind.value;
  const offset = (x: Expr) => factory.positions[String(x.id)] ?? 0;
  if (!SORT_BY_TARGETS.has(target.exprKind.case ?? ''))
    throw new CelParseError(offset(target), 'sortBy can only be applied to a list, identifier, comprehension, call or select expression');
  // parser.MakeMap's checks of the iteration variable
  const [variable, key] = args;
  if (variable.exprKind.case !== 'identExpr') throw new CelParseError(offset(variable), 'argument is not an identifier');
  const iterVar = variable.exprKind.value.name;
  if (ACCUMULATOR_NAMES.has(iterVar)) throw new CelParseError(offset(variable), 'iteration variable overwrites accumulator variable');
  const at = offset(e);
  const input = () => factory.ident(at, SORT_BY_INPUT);
  const accu = () => factory.ident(at, ACCUMULATOR);
  const keys = factory.comprehension(at, {
    iterRange: input(),
    iterVar,
    iterVar2: '',
    accuVar: ACCUMULATOR,
    accuInit: factory.list(at, []),
    loopCondition: factory.constant(at, { case: 'boolValue', value: true }),
    loopStep: factory.call(at, '_+_', [accu(), factory.list(at, [key])]),
    result: accu(),
  });
  return {
    case: 'comprehensionExpr',
    value: {
      $typeName: 'cel.expr.Expr.Comprehension',
      iterRange: factory.list(at, []),
      iterVar: '#unused',
      iterVar2: '',
      accuVar: SORT_BY_INPUT,
      accuInit: target,
      loopCondition: factory.constant(at, { case: 'boolValue', value: false }),
      loopStep: input(),
      result: factory.call(at, SORT_BY_ASSOCIATED_KEYS, [keys], input()),
    },
  } as Expr['exprKind'];
}

/**
 * cel.OptionalTypes' optMap and optFlatMap macros: `o.hasValue() ? optional.of(e) : optional.none()`
 * (optFlatMap: `e` as it is), with `v` bound to `o.value()` in `e` by a comprehension over no
 * elements whose accumulator it is; null for any other call.
 */
function expandOptionalMap(e: Expr, factory: ExprFactory): Expr['exprKind'] | null {
  if (e.exprKind.case !== 'callExpr' || !e.exprKind.value.target || e.exprKind.value.args.length !== 2) return null;
  const { function: fn, target, args } = e.exprKind.value;
  if (fn !== 'optMap' && fn !== 'optFlatMap') return null;
  const [variable, mapped] = args;
  if (variable.exprKind.case !== 'identExpr')
    throw new CelParseError(factory.positions[String(variable.id)] ?? 0, `${fn}() variable name must be a simple identifier`);
  const at = factory.positions[String(e.id)] ?? 0;
  const bound = factory.comprehension(at, {
    iterRange: factory.list(at, []),
    iterVar: '#unused',
    iterVar2: '',
    accuVar: variable.exprKind.value.name,
    accuInit: factory.call(at, 'value', [], target),
    loopCondition: factory.constant(at, { case: 'boolValue', value: false }),
    loopStep: factory.ident(at, variable.exprKind.value.name),
    result: mapped,
  });
  const some = fn === 'optMap' ? factory.call(at, 'optional.of', [bound]) : bound;
  return factory.call(at, '_?_:_', [factory.call(at, 'hasValue', [], target), some, factory.call(at, 'optional.none', [])]).exprKind;
}

/** ext/comprehensions.go's map insertion function, which transformMap and transformMapEntry steps call. */
export const MAP_INSERT = 'cel.@mapInsert';

/** Parses CEL as kube's environments do; throws CelParseError. */
export function parseCel(source: string): ParsedExpr {
  const { text, marks } = blankOptionalMarkers(source);
  let parsed: ParsedExpr;
  try {
    parsed = parse(text);
  } catch (err) {
    const e = err as { rawMessage?: string; location?: { start?: { offset?: number } }; message: string };
    throw new CelParseError(e.location?.start?.offset ?? 0, `Syntax error: ${e.rawMessage ?? e.message}`, e.message);
  }
  const factory = new ExprFactory(parsed);
  if (marks.length > 0) {
    const nodes = nodesAt(parsed, text);
    for (const mark of marks) {
      if (!applyMark(mark, nodes, factory)) throw new CelParseError(mark.at, "Syntax error: unexpected '?'");
    }
  }
  // innermost first, as cel-go expands a macro's arguments before the macro
  const calls = [...walk(parsed.expr)].reverse();
  for (const e of calls) {
    const expanded = expandTwoVariableMacro(e, factory) ?? expandSortBy(e, factory) ?? expandOptionalMap(e, factory);
    if (expanded) e.exprKind = expanded;
  }
  return parsed;
}
