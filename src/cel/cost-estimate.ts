import { CONSTANT_TYPES, type Expr } from './ast';
import { SORT_BY_ASSOCIATED_KEYS } from './library/ext-lists';

/**
 * The static cost estimate of a CEL expression, as cel-go's checker computes it (checker/cost.go
 * `Cost`, with kube's `PresenceTestHasCost(false)`), with the call costs Kubernetes' libraries add
 * (apiserver/pkg/cel/library/cost.go `CostEstimator.EstimateCallCost`) and the sets extension's
 * (cel-go ext/sets.go `estimateSetsCost`) and the lists extension's (ext/lists.go). Sizes of values read from the variables come from their
 * declared types (`CelType.maxElements`, what kube's sizeEstimator reads off the schema's DeclType)
 * by the same field paths cel-go builds. cel-go works on a type-checked AST; kapi's parser leaves
 * types out, so they are inferred here from the declared types and the functions' result types, and
 * where a type stays unknown (dyn) an operator is costed as its dearest overload would be.
 * The optional syntax's calls (`_?._`, `_[?_]`) and optional values' functions cost cel-go's
 * default 1 with no field path, typed `optional(T)` as cel-go's checker types them, and the
 * two-variable comprehensions bind their key and value as cel-go's pushIterKey/pushIterValue do.
 * Arithmetic saturates at the largest uint64, as cel-go's does.
 */

export type Kind = 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'duration' | 'timestamp' | 'null' | 'list' | 'map' | 'object' | 'optional' | 'dyn';

/** A CEL type; declared types (from a schema) carry the size bound and the minimum serialized size kube derives for them. */
export interface CelType {
  kind: Kind;
  elem?: CelType;
  /** A map's key type (cel-go's `@keys` path); a string without bound when absent. */
  key?: CelType;
  fields?: Map<string, CelType>;
  /** DeclType.MaxElements: the largest size() of a value of this type. */
  maxElements?: number;
  /** DeclType.MinSerializedSize: the fewest JSON bytes a value of this type takes. */
  minSize?: number;
}

export interface Estimate {
  min: number;
  max: number;
}

/** math.MaxUint64 as a float, where cel-go's uint64 arithmetic saturates. */
export const MAX_U64 = 2 ** 64;
const STRING_TRAVERSAL = 0.1;
const REGEX_STRING_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
const STRUCT_CREATE = 40;

const DYN: CelType = { kind: 'dyn' };
const UNKNOWN: Estimate = { min: 0, max: MAX_U64 };
const fixed = (n: number): Estimate => ({ min: n, max: n });
const sat = (n: number): number => (n >= MAX_U64 ? MAX_U64 : n);
const add = (a: Estimate, b: Estimate): Estimate => ({ min: sat(a.min + b.min), max: sat(a.max + b.max) });
const mulU = (x: number, y: number): number => (x === 0 || y === 0 ? 0 : sat(x * y));
const mul = (a: Estimate, b: Estimate): Estimate => ({ min: mulU(a.min, b.min), max: mulU(a.max, b.max) });
const byFactorU = (x: number, f: number): number => sat(Math.ceil(x * f));
/** MultiplyByCostFactor: each bound times the factor, rounded up. */
const byFactor = (a: Estimate, f: number): Estimate => ({ min: byFactorU(a.min, f), max: byFactorU(a.max, f) });
const union = (a: Estimate, b: Estimate): Estimate => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });

interface EntrySize {
  container: 'list' | 'map';
  key: Estimate;
  val: Estimate;
}

interface LocalVar {
  path: string[];
  size?: Estimate;
  entry?: EntrySize;
  type: CelType;
}

const ACCUMULATORS = new Set(['@result', '__result__']);
const SCALARS = new Set<Kind>(['bool', 'double', 'duration', 'int', 'timestamp', 'uint']);
const BOOL_FUNCTIONS = new Set([
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '_&&_',
  '_||_',
  '!_',
  '@not_strictly_false',
  '@in',
  'contains',
  'startsWith',
  'endsWith',
  'matches',
  'isSorted',
  'hasValue',
]);
const STRING_FUNCTIONS = new Set([
  'lowerAscii',
  'upperAscii',
  'trim',
  'substring',
  'replace',
  'charAt',
  'join',
  'format',
  'quote',
  'reverse',
  'find',
  'string',
]);
const ORDERING = new Set(['_<_', '_<=_', '_>_', '_>=_']);
/** The lists extension's functions that return a list of their target's type (flatten() one level less). */
const LIST_FUNCTIONS = new Set(['slice', 'flatten', 'reverse', 'distinct', 'sort', SORT_BY_ASSOCIATED_KEYS]);
const textual = (t: CelType): boolean => t.kind === 'string' || t.kind === 'bytes' || t.kind === 'dyn';

/** The variables an expression reads: each name's declared type. The first is the root kube's sizeEstimator walks paths from. */
export interface Variables {
  root: CelType;
  vars: Map<string, CelType>;
}

/** cel-go's estimated cost range of an expression (kube compares `max` with its limits). */
export function estimateCost(expr: Expr | undefined, variables: Variables): Estimate {
  return new Coster(variables).cost(expr);
}

class Coster {
  private readonly paths = new Map<Expr, string[]>();
  private readonly sizes = new Map<Expr, Estimate>();
  private readonly entries = new Map<Expr, EntrySize>();
  private readonly types = new Map<Expr, CelType>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(private readonly variables: Variables) {}

  cost(e: Expr | undefined): Estimate {
    if (!e) return fixed(0);
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        this.types.set(e, { kind: literalKind(k.value.constantKind.case) });
        return fixed(0);
      case 'identExpr':
        return this.costIdent(e, k.value.name);
      case 'selectExpr':
        return this.costSelect(e, k.value.operand, k.value.field, k.value.testOnly);
      case 'callExpr':
        return this.costCall(e, k.value.function, k.value.target, k.value.args);
      case 'listExpr':
        return this.costList(e, k.value.elements);
      case 'structExpr':
        return this.costStruct(e, k.value);
      case 'comprehensionExpr':
        return this.costComprehension(e, k.value);
      default:
        // a node shape this estimator does not know: no cost of its own, as cel-go's default
        return fixed(0);
    }
  }

  private typeOf(e: Expr | undefined): CelType {
    return (e && this.types.get(e)) ?? DYN;
  }

  private local(name: string): LocalVar | undefined {
    const stack = this.locals.get(name);
    return stack?.[stack.length - 1];
  }

  private push(name: string, v: LocalVar): void {
    this.locals.set(name, [...(this.locals.get(name) ?? []), v]);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private pathOf(e: Expr | undefined): string[] {
    if (!e) return [];
    if (e.exprKind.case === 'identExpr') {
      const v = this.local(e.exprKind.value.name);
      if (v) return v.path;
    }
    return this.paths.get(e) ?? [];
  }

  /** A list's items' declared bound, as kube's listElementNode finds it (no path through an accumulator). */
  private itemsSize(list: Expr): Estimate {
    const path = this.pathOf(list);
    if (path.length === 0 || ACCUMULATORS.has(path[0])) return UNKNOWN;
    return this.sizeAtPath([...path, '@items']) ?? UNKNOWN;
  }

  /** kube's sizeEstimator.EstimateSize: the declared bound at a path from the root variable, or nothing. */
  private sizeAtPath(path: string[]): Estimate | undefined {
    if (path.length === 0) return undefined;
    let node: CelType | undefined = this.variables.root;
    for (const name of path.slice(1)) {
      if (name === '@items' || name === '@values') node = node.elem;
      else if (name === '@keys') node = node.kind === 'map' ? (node.key ?? { kind: 'string', maxElements: 0 }) : undefined;
      else node = node.fields?.get(name);
      if (!node) return undefined;
    }
    return { min: 0, max: node.maxElements ?? 0 };
  }

  /** computeSize: a call's result size, a literal's, the declared bound at its path, a scalar's 1, a local variable's. */
  private sizeOf(e: Expr | undefined): Estimate | undefined {
    if (!e) return undefined;
    const computed = this.sizes.get(e) ?? literalSize(e);
    if (computed) return computed;
    const declared = this.sizeAtPath(this.pathOf(e));
    if (declared) {
      this.sizes.set(e, declared);
      return declared;
    }
    const t = this.typeOf(e);
    if (SCALARS.has(t.kind) || (t.kind === 'optional' && t.elem && SCALARS.has(t.elem.kind))) return fixed(1);
    if (e.exprKind.case === 'identExpr') return this.local(e.exprKind.value.name)?.size;
    return undefined;
  }

  private sizeOrUnknown(e: Expr | undefined): Estimate {
    return this.sizeOf(e) ?? UNKNOWN;
  }

  private entryOf(e: Expr | undefined): EntrySize | undefined {
    if (!e) return undefined;
    const found = this.entries.get(e);
    if (found) return found;
    if (e.exprKind.case === 'identExpr') return this.local(e.exprKind.value.name)?.entry;
    return undefined;
  }

  private costIdent(e: Expr, name: string): Estimate {
    const v = this.local(name);
    this.paths.set(e, v ? v.path : [name]);
    this.types.set(e, v ? v.type : (this.variables.vars.get(name) ?? DYN));
    return fixed(1);
  }

  private costSelect(e: Expr, operand: Expr | undefined, field: string, testOnly: boolean): Estimate {
    if (testOnly) {
      // has(): presence tests cost nothing in kube (PresenceTestHasCost(false)), the operand its own
      this.types.set(e, { kind: 'bool' });
      return this.cost(operand);
    }
    let sum = this.cost(operand);
    const target = this.typeOf(operand);
    if (target.kind === 'map' || target.kind === 'object') sum = add(sum, fixed(1));
    this.paths.set(e, [...this.pathOf(operand), field]);
    // a selection on an optional value (`a.?b.c`) is optional too, and costs no more than its operand, as in cel-go
    this.types.set(e, target.kind === 'optional' ? optional(fieldType(target.elem ?? DYN, field)) : fieldType(target, field));
    return sum;
  }

  private costList(e: Expr, elements: Expr[]): Estimate {
    let sum = fixed(0);
    let item: Estimate = { min: elements.length === 0 ? 0 : MAX_U64, max: 0 };
    for (const element of elements) {
      sum = add(sum, this.cost(element));
      item = union(item, this.sizeOrUnknown(element));
    }
    this.entries.set(e, { container: 'list', key: fixed(1), val: item });
    this.types.set(e, { kind: 'list', elem: elements.length > 0 ? this.typeOf(elements[0]) : DYN });
    return add(sum, fixed(LIST_CREATE));
  }

  private costStruct(e: Expr, s: Extract<Expr['exprKind'], { case: 'structExpr' }>['value']): Estimate {
    let sum = fixed(0);
    if (s.messageName) {
      for (const entry of s.entries) sum = add(sum, this.cost(entry.value));
      this.types.set(e, { kind: 'object' });
      return add(sum, fixed(STRUCT_CREATE));
    }
    const empty = s.entries.length === 0;
    let key: Estimate = { min: empty ? 0 : MAX_U64, max: 0 };
    let val: Estimate = { min: empty ? 0 : MAX_U64, max: 0 };
    for (const entry of s.entries) {
      const k = entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined;
      sum = add(add(sum, this.cost(k)), this.cost(entry.value));
      key = union(key, this.sizeOrUnknown(k));
      val = union(val, this.sizeOrUnknown(entry.value));
    }
    this.entries.set(e, { container: 'map', key, val });
    this.types.set(e, { kind: 'map', elem: empty ? DYN : this.typeOf(s.entries[0].value) });
    return add(sum, fixed(MAP_CREATE));
  }

  private costComprehension(e: Expr, c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value']): Estimate {
    if (isBind(c)) {
      let sum = add(this.cost(c.iterRange), this.cost(c.accuInit));
      this.pushLocal(c.accuVar, c.accuInit);
      sum = add(sum, this.cost(c.result));
      this.pop(c.accuVar);
      this.copySizes(e, c.result);
      return sum;
    }
    let sum = add(this.cost(c.iterRange), this.cost(c.accuInit));
    this.pushLocal(c.accuVar, c.accuInit);
    const range = c.iterRange;
    const entry = this.entryOf(range);
    const rangeType = this.typeOf(range);
    const container = entry?.container ?? (rangeType.kind === 'map' ? 'map' : 'list');
    const rangePath = this.pathOf(range);
    const elemType = container === 'list' ? (rangeType.elem ?? DYN) : { kind: 'string' as Kind };
    if (c.iterVar2) {
      this.push(c.iterVar, {
        path: [...rangePath, container === 'list' ? '@indices' : '@keys'],
        size: entry?.key,
        type: container === 'list' ? { kind: 'int' } : { kind: 'string' },
      });
      this.push(c.iterVar2, { path: [...rangePath, container === 'list' ? '@items' : '@values'], size: entry?.val, type: rangeType.elem ?? DYN });
    } else {
      this.push(c.iterVar, {
        path: [...rangePath, container === 'list' ? '@items' : '@keys'],
        size: container === 'list' ? entry?.val : entry?.key,
        type: elemType,
      });
    }
    const loop = add(this.cost(c.loopCondition), this.cost(c.loopStep));
    this.pop(c.iterVar);
    if (c.iterVar2) this.pop(c.iterVar2);
    sum = add(sum, this.cost(c.result));
    this.types.set(e, this.typeOf(c.result));
    this.pop(c.accuVar);
    const count = this.sizeOrUnknown(range);
    sum = add(sum, mul(count, loop));
    const init = c.accuInit?.exprKind.case;
    if (init === 'constExpr') {
      const size = this.sizeOf(c.accuInit);
      if (size) this.sizes.set(e, size);
    } else if (init === 'listExpr' || init === 'structExpr') {
      this.sizes.set(e, count);
      const stepEntry = this.entryOf(c.loopStep);
      if (stepEntry) this.entries.set(e, stepEntry);
    }
    return sum;
  }

  private pushLocal(name: string, init: Expr | undefined): void {
    this.push(name, { path: this.pathOf(init), size: this.sizeOf(init), entry: this.entryOf(init), type: this.typeOf(init) });
  }

  private copySizes(dst: Expr, src: Expr | undefined): void {
    const size = this.sizeOf(src);
    if (size) this.sizes.set(dst, size);
    const entry = this.entryOf(src);
    if (entry) this.entries.set(dst, entry);
    this.types.set(dst, this.typeOf(src));
  }

  private costCall(e: Expr, fn: string, target: Expr | undefined, args: Expr[]): Estimate {
    // a function in a namespace (`sets.contains`, `ip.isCanonical`) is parsed as a member call on an identifier that names no variable
    if (target?.exprKind.case === 'identExpr' && !this.local(target.exprKind.value.name) && !this.variables.vars.has(target.exprKind.value.name)) {
      fn = `${target.exprKind.value.name}.${fn}`;
      target = undefined;
    }
    if (fn === 'dyn' && args.length === 1) {
      const inner = this.cost(args[0]);
      this.copySizes(e, args[0]);
      return add(fixed(1), inner);
    }
    const argCosts = args.map((a) => this.cost(a));
    let sum = fixed(0);
    if (target) sum = add(sum, this.cost(target));
    const argSum = argCosts.reduce(add, fixed(0));
    this.types.set(e, this.resultType(fn, target, args));
    const call = this.callCost(e, fn, target, args, argCosts);
    let result = call.result;
    if (fn === '_[_]' && args.length === 2) {
      const container = this.typeOf(args[0]);
      result = this.entryOf(args[0])?.val;
      this.paths.set(e, [...this.pathOf(args[0]), container.kind === 'map' ? '@values' : '@items']);
    }
    result ??= this.sizeOf(e);
    if (result) this.sizes.set(e, result);
    return add(sum, call.own ? add(call.own, argSum) : call.total!);
  }

  /** A call's cost: `own` plus its arguments' (as cel-go adds them), or a `total` that already counts them. */
  private callCost(e: Expr, fn: string, target: Expr | undefined, args: Expr[], argCosts: Estimate[]): { own?: Estimate; total?: Estimate; result?: Estimate } {
    const size = (x: Expr | undefined): Estimate => this.sizeOrUnknown(x);
    const t = (x: Expr | undefined): CelType => this.typeOf(x);
    // ext/sets.go: the product of the two lists' sizes, times 1 (contains, intersects) or 2 (equivalent), plus the call's 1
    if ((fn === 'sets.contains' || fn === 'sets.intersects' || fn === 'sets.equivalent') && args.length === 2)
      return { own: add(byFactor(mul(size(args[0]), size(args[1])), fn === 'sets.equivalent' ? 2 : 1), fixed(1)) };
    const lists = this.listsCallCost(fn, target, args);
    if (lists) return lists;
    const kube = this.kubeCallCost(fn, target, args);
    if (kube) return kube;
    switch (fn) {
      case 'format':
        if (target) return { own: byFactor(size(target), STRING_TRAVERSAL) };
        break;
      case 'startsWith':
      case 'endsWith':
        if (target && args.length === 1) return { own: byFactor(size(args[0]), STRING_TRAVERSAL) };
        break;
      case '@in':
        if (args.length === 2 && t(args[1]).kind !== 'map') return { own: byFactor(size(args[1]), 1) };
        break;
      case 'matches':
        if (target && args.length === 1) {
          const str = byFactor(add(size(target), fixed(1)), STRING_TRAVERSAL);
          return { own: mul(str, byFactor(size(args[0]), REGEX_STRING_LENGTH)) };
        }
        break;
      case 'contains':
        if (target && args.length === 1 && t(target).kind !== 'list')
          return { own: mul(byFactor(size(target), STRING_TRAVERSAL), byFactor(size(args[0]), STRING_TRAVERSAL)) };
        break;
      case '_&&_':
      case '_||_':
        return { total: { min: argCosts[0].min, max: add(argCosts[0], argCosts[1]).max } };
      case '_?_:_': {
        const result = union(size(args[1]), size(args[2]));
        const entry = unionEntries(this.entryOf(args[1]), this.entryOf(args[2]));
        if (entry) this.entries.set(e, entry);
        return { total: add(argCosts[0], union(argCosts[1], argCosts[2])), result };
      }
      case '_+_': {
        const left = t(args[0]);
        const right = t(args[1]);
        const isList = left.kind === 'list' || right.kind === 'list';
        const isText = !isList && (textual(left) || textual(right)) && !(NUMERIC.has(left.kind) || NUMERIC.has(right.kind));
        if (!isList && !isText) break;
        const result = add(size(args[0]), size(args[1]));
        const entry = unionEntries(this.entryOf(args[0]), this.entryOf(args[1]));
        if (entry) this.entries.set(e, entry);
        return { own: isList ? fixed(1) : byFactor(result, STRING_TRAVERSAL), result };
      }
      case '_==_':
      case '_!=_':
        return { own: comparisonCost(size(args[0]), size(args[1])) };
      default:
        if (
          ORDERING.has(fn) &&
          args.length === 2 &&
          (textual(t(args[0])) || textual(t(args[1]))) &&
          !NUMERIC.has(t(args[0]).kind) &&
          !NUMERIC.has(t(args[1]).kind)
        )
          return { own: comparisonCost(size(args[0]), size(args[1])) };
    }
    // O(1) functions: cel-go's base cost of one
    return { own: fixed(1) };
  }

  /**
   * The lists extension's estimators (ext/lists.go, ListsVersion(3)), which cel-go asks before
   * kube's: estimateAllocatingListCall, the result's size by a factor plus the call and a list's
   * creation; the result's size is the one costed (for distinct and sort the square of the list's,
   * as cel-go has it). `reverse` of a string is the strings extension's.
   */
  private listsCallCost(fn: string, target: Expr | undefined, args: Expr[]): { own: Estimate; result: Estimate } | undefined {
    const size = (x: Expr | undefined): Estimate => this.sizeOrUnknown(x);
    const allocating = (factor: number, result: Estimate) => ({ own: add(byFactor(result, factor), fixed(1 + LIST_CREATE)), result });
    // nodeAsIntValue: an int literal's value (0 when negative), else the default
    const intArg = (x: Expr | undefined, otherwise: number): number =>
      x?.exprKind.case === 'constExpr' && x.exprKind.value.constantKind.case === 'int64Value'
        ? Math.max(0, Number(x.exprKind.value.constantKind.value))
        : otherwise;
    // estimateListSortCost: each element compared with each, strings and bytes also traversed
    const sorting = (keys: Expr) => {
      const elem = this.typeOf(keys).elem?.kind;
      return allocating(elem === 'string' || elem === 'bytes' ? 2 + STRING_TRAVERSAL : 2, mul(size(keys), size(keys)));
    };
    if (fn === 'lists.range' && !target && args.length === 1) return allocating(1, fixed(intArg(args[0], MAX_U64)));
    if (!target || this.typeOf(target).kind !== 'list') return undefined;
    switch (fn) {
      case 'slice':
        if (args.length !== 2) return undefined;
        return allocating(1, fixed(Math.max(0, intArg(args[1], size(target).max) - intArg(args[0], 0))));
      case 'flatten':
        if (args.length > 1) return undefined;
        return allocating(args.length === 1 ? intArg(args[0], MAX_U64) : 1, size(target));
      case 'reverse':
        return args.length === 0 ? allocating(1, size(target)) : undefined;
      case 'distinct':
        return args.length === 0 ? allocating(2, mul(size(target), size(target))) : undefined;
      case 'sort':
        return args.length === 0 ? sorting(target) : undefined;
      case SORT_BY_ASSOCIATED_KEYS:
        return args.length === 1 ? sorting(args[0]) : undefined;
      default:
        return undefined;
    }
  }

  /** Kubernetes' library call costs (library/cost.go EstimateCallCost), which cel-go asks before its own. */
  private kubeCallCost(fn: string, target: Expr | undefined, args: Expr[]): { own: Estimate; result?: Estimate } | undefined {
    const size = (x: Expr | undefined): Estimate => this.sizeOrUnknown(x);
    switch (fn) {
      case 'check':
        return { own: fixed(350000) };
      case 'serviceAccount':
      case 'path':
      case 'group':
      case 'resource':
      case 'subresource':
      case 'namespace':
      case 'name':
      case 'allowed':
      case 'reason':
      case 'error':
      case 'errored':
      case 'masked':
      case 'prefixLength':
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'sign':
      case 'asInteger':
      case 'isInteger':
      case 'asApproximateFloat':
      case 'isGreaterThan':
      case 'isLessThan':
      case 'compareTo':
      case 'add':
      case 'sub':
        return { own: fixed(1) };
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf': {
        if (!target) return undefined;
        const list = this.typeOf(target);
        if (list.kind !== 'list') return { own: byFactor(size(target), STRING_TRAVERSAL) };
        // each element compared once, strings and bytes also traversed
        const elem = list.elem ?? DYN;
        let each = fixed(1);
        if (elem.kind === 'string' || elem.kind === 'bytes') each = add(each, byFactor(this.itemsSize(target), STRING_TRAVERSAL));
        const n = size(target);
        return { own: { min: mulU(n.min, each.min), max: mulU(n.max, each.max) } };
      }
      case 'url':
        if (args.length === 1) return { own: byFactor(size(args[0]), STRING_TRAVERSAL) };
        return undefined;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (!target) return undefined;
        return { own: byFactor(size(target), STRING_TRAVERSAL), result: size(target) };
      case 'replace':
        if (target && args.length >= 2)
          return { own: byFactor(size(target), 2 * STRING_TRAVERSAL), result: replacedSize(size(target), size(args[0]), size(args[1])) };
        return undefined;
      case 'split': {
        if (!target) return undefined;
        const sz = size(target);
        const limit = args[1]?.exprKind.case === 'constExpr' ? literalNumber(args[1]) : undefined;
        return { own: byFactor(sz, 2 * STRING_TRAVERSAL), result: { min: 0, max: limit ?? sz.max } };
      }
      case 'join': {
        if (!target) return undefined;
        const n = size(target);
        let sz = this.typeOf(target).elem ? mul(n, this.itemsSize(target)) : fixed(0);
        if (args.length > 0) sz = add(sz, mul(size(args[0]), { min: Math.max(0, n.min - 1), max: Math.max(0, n.max - 1) }));
        return { own: byFactor(sz, STRING_TRAVERSAL), result: sz };
      }
      case 'find':
      case 'findAll':
        if (!target || args.length < 1) return undefined;
        return {
          own: mul(byFactor(add(size(target), fixed(1)), STRING_TRAVERSAL), byFactor(size(args[0]), REGEX_STRING_LENGTH)),
          result: { min: 0, max: size(target).max },
        };
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
      case 'quantity':
      case 'isQuantity':
        // kube costs these only when called on a target; the global forms fall to cel-go's 1
        if (target && args.length >= 1) return { own: byFactor(size(args[0]), STRING_TRAVERSAL) };
        return undefined;
      case 'ip':
        if (target && args.length >= 1) return { own: byFactor(size(args[0]), STRING_TRAVERSAL) };
        if (target) return { own: fixed(1) };
        return undefined;
      case 'containsIP':
      case 'containsCIDR': {
        if (!target || args.length < 1) return undefined;
        // two byte lists of 4 (IPv4) to 16 (IPv6) bytes compared
        const bytes: Estimate = { min: 4, max: 16 };
        let own = byFactor(add(bytes, bytes), STRING_TRAVERSAL);
        if (fn === 'containsCIDR') own = add(add(own, byFactor(bytes, STRING_TRAVERSAL)), fixed(1));
        if (this.typeOf(args[0]).kind === 'string') own = add(own, byFactor(size(args[0]), STRING_TRAVERSAL));
        return { own };
      }
      default:
        return undefined;
    }
  }

  private resultType(fn: string, target: Expr | undefined, args: Expr[]): CelType {
    const first = this.typeOf(target ?? args[0]);
    const optionalType = this.optionalResultType(fn, first, args);
    if (optionalType) return optionalType;
    if (fn === 'lists.range') return { kind: 'list', elem: { kind: 'int' } };
    if (first.kind === 'list' && LIST_FUNCTIONS.has(fn))
      return fn === 'flatten' && args.length === 0 ? (first.elem?.kind === 'list' ? first.elem : first) : first;
    if (BOOL_FUNCTIONS.has(fn) || fn.startsWith('sets.') || fn.startsWith('is')) return { kind: 'bool' };
    if (STRING_FUNCTIONS.has(fn)) return { kind: 'string' };
    switch (fn) {
      case 'size':
      case 'int':
      case 'indexOf':
      case 'lastIndexOf':
        return { kind: 'int' };
      case 'uint':
        return { kind: 'uint' };
      case 'double':
        return { kind: 'double' };
      case 'bytes':
        return { kind: 'bytes' };
      case 'duration':
        return { kind: 'duration' };
      case 'timestamp':
        return { kind: 'timestamp' };
      case 'split':
      case 'findAll':
        return { kind: 'list', elem: { kind: 'string' } };
      case '_[_]':
        return first.kind === 'list' || first.kind === 'map' ? (first.elem ?? DYN) : DYN;
      case '_?_:_':
        return this.typeOf(args[1]).kind !== 'dyn' ? this.typeOf(args[1]) : this.typeOf(args[2]);
      case '_+_':
      case '_-_':
      case '_*_':
      case '_/_':
      case '_%_':
        return first.kind !== 'dyn' ? first : this.typeOf(args[1]);
      case '-_':
        return first;
      case 'sum':
      case 'max':
      case 'min':
        return first.kind === 'list' ? (first.elem ?? DYN) : DYN;
      default:
        return DYN;
    }
  }

  /** cel-go's optional library's result types: `_?._` and `_[?_]` wrap what they read, `value()` and `orValue()` unwrap. */
  private optionalResultType(fn: string, first: CelType, args: Expr[]): CelType | undefined {
    const inner = first.kind === 'optional' ? (first.elem ?? DYN) : first;
    switch (fn) {
      case '_?._': {
        const name = args[1]?.exprKind.case === 'constExpr' ? args[1].exprKind.value.constantKind.value : undefined;
        return optional(typeof name === 'string' ? fieldType(inner, name) : DYN);
      }
      case '_[?_]':
        return optional(inner.kind === 'list' || inner.kind === 'map' ? (inner.elem ?? DYN) : DYN);
      case 'optional.of':
      case 'optional.ofNonZeroValue':
        return optional(this.typeOf(args[0]));
      case 'optional.none':
        return optional(DYN);
      case 'value':
        return first.kind === 'optional' ? inner : undefined;
      case 'orValue':
        return first.kind === 'optional' ? (inner.kind !== 'dyn' ? inner : this.typeOf(args[0])) : undefined;
      case 'or':
        return first.kind === 'optional' ? first : undefined;
      default:
        return undefined;
    }
  }
}

const optional = (elem: CelType): CelType => ({ kind: 'optional', elem });

/** The type of a field read from a value of type `t`: an object's declared field, a map's values, else dyn. */
function fieldType(t: CelType, field: string): CelType {
  if (t.kind === 'object') return t.fields?.get(field) ?? DYN;
  if (t.kind === 'map') return t.elem ?? DYN;
  return DYN;
}

const NUMERIC = new Set<Kind>(['int', 'uint', 'double']);

/** Equality and string ordering: the shorter operand traversed, at least 1 when either can be non-empty. */
function comparisonCost(left: Estimate, right: Estimate): Estimate {
  const smallestMax = Math.min(left.max, right.max);
  return byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, STRING_TRAVERSAL);
}

/** library/cost.go's `replace` result: the most replacements of the shortest match by the longest replacement, and the reverse. */
function replacedSize(sz: Estimate, from: Estimate, to: Estimate): Estimate {
  let countMax: number;
  let keptMax = 0;
  if (from.min === 0) {
    countMax = sz.max < MAX_U64 ? sz.max + 1 : sz.max;
    keptMax = sz.max;
  } else if (to.max <= from.min) {
    countMax = 0;
    keptMax = sz.max;
  } else {
    countMax = Math.ceil(sz.max / from.min);
  }
  let countMin: number;
  let keptMin = 0;
  if (from.max === 0) {
    countMin = sz.min < MAX_U64 ? sz.min + 1 : sz.min;
    keptMin = sz.min;
  } else if (from.max <= to.min) {
    countMin = 0;
    keptMin = sz.min;
  } else {
    countMin = Math.ceil(sz.min / from.max);
  }
  return add(mul({ min: countMin, max: countMax }, to), { min: keptMin, max: keptMax });
}

function unionEntries(a: EntrySize | undefined, b: EntrySize | undefined): EntrySize | undefined {
  if (!a || !b) return undefined;
  return { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) };
}

function literalKind(c: string | undefined): Kind {
  return c !== undefined && c in CONSTANT_TYPES ? CONSTANT_TYPES[c as keyof typeof CONSTANT_TYPES] : 'dyn';
}

function literalNumber(e: Expr): number | undefined {
  if (e.exprKind.case !== 'constExpr') return undefined;
  const v = e.exprKind.value.constantKind.value;
  return typeof v === 'bigint' || typeof v === 'number' ? Math.max(0, Number(v)) : undefined;
}

/** computeExprSize: a string literal's code points, a bytes literal's bytes, a scalar's 1, a list or map literal's entries. */
function literalSize(e: Expr): Estimate | undefined {
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr': {
      const c = k.value.constantKind;
      if (c.case === 'stringValue') return fixed([...c.value].length);
      if (c.case === 'bytesValue') return fixed(c.value.length);
      return c.case ? fixed(1) : undefined;
    }
    case 'listExpr':
      return fixed(k.value.elements.length);
    case 'structExpr':
      return k.value.messageName ? undefined : fixed(k.value.entries.length);
    default:
      return undefined;
  }
}

/** cel.bind's shape: an empty range, a false loop condition, its own accumulator name. */
function isBind(c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value']): boolean {
  const range = c.iterRange?.exprKind;
  const condition = c.loopCondition?.exprKind;
  return (
    range?.case === 'listExpr' &&
    range.value.elements.length === 0 &&
    condition?.case === 'constExpr' &&
    condition.value.constantKind.case === 'boolValue' &&
    !condition.value.constantKind.value &&
    !ACCUMULATORS.has(c.accuVar)
  );
}
