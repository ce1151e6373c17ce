import { celEnv, celError, celFunc, CelScalar, isCelError, isCelList, isCelMap, parse, plan, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { constructionsAsMaps, type Expr } from './object-construction';
import { authorizerLibrary, withAuthorizer } from './authorizer-library';
import { CelCompileError, celErrorText, type CompiledExpression, type CompileOptions, type ParsedExpr } from './cel-expression';
import { kubernetesLibraries, QUALIFIED_LIBRARY_FUNCTIONS } from '../../cel/library';
import { invalidMatchesLiteral } from '../../cel/regex-literals';
import { costFunction, COST_LIMIT_EXCEEDED, meterLoops, metered, PER_CALL_LIMIT } from '../../cel/cost';

/**
 * The engine behind ./cel.ts (loaded on the first expression): CEL for admission (policies' validations, variables and audit annotations; webhooks' and
 * policies' matchConditions): the standard and string libraries, Kubernetes' authorizer library
 * and its lists, regex (with `matches` as a function too), url, quantity, ip, cidr, semver, sets
 * and format libraries, with optional values (cel-library/). Expressions are compiled once and
 * run against JSON objects converted to CEL values (objects as maps, whole numbers as ints).
 */

/** `jsonpatch.escapeKey(string)` of mutating policies (library.JSONPatch): a key as one JSON Pointer token (RFC 6901). */
const escapeKeyFunction = celFunc('jsonpatch.escapeKey', [CelScalar.STRING], CelScalar.STRING, (key) => key.replaceAll('~', '~0').replaceAll('/', '~1'));

const ENV = celEnv({ funcs: [...strings, escapeKeyFunction, ...authorizerLibrary, ...kubernetesLibraries, costFunction] });

/** Functions named in a namespace: `jsonpatch` in `jsonpatch.escapeKey(k)` is no variable. */
const QUALIFIED_FUNCTIONS = new Set(['jsonpatch.escapeKey', ...QUALIFIED_LIBRARY_FUNCTIONS]);

interface Scope {
  has(name: string): boolean;
}

/** The first identifier the expression reads that is not declared (cel-go's "undeclared reference"), with its offset. */
function undeclared(expr: Expr | undefined, declared: Scope, positions: Record<string, number>): { name: string; offset: number } | null {
  if (!expr) return null;
  const k = expr.exprKind;
  const at = (e: Expr) => positions[String(e.id)] ?? 0;
  switch (k.case) {
    case 'identExpr':
      return declared.has(k.value.name) ? null : { name: k.value.name, offset: at(expr) };
    case 'selectExpr':
      return undeclared(k.value.operand, declared, positions);
    case 'callExpr': {
      const target = k.value.target?.exprKind;
      const qualified = target?.case === 'identExpr' && QUALIFIED_FUNCTIONS.has(`${target.value.name}.${k.value.function}`);
      const inTarget = qualified ? null : undeclared(k.value.target, declared, positions);
      if (inTarget) return inTarget;
      for (const arg of k.value.args) {
        const found = undeclared(arg, declared, positions);
        if (found) return found;
      }
      return null;
    }
    case 'listExpr':
      for (const e of k.value.elements) {
        const found = undeclared(e, declared, positions);
        if (found) return found;
      }
      return null;
    case 'structExpr':
      for (const entry of k.value.entries) {
        const found =
          undeclared(entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined, declared, positions) ?? undeclared(entry.value, declared, positions);
        if (found) return found;
      }
      return null;
    case 'comprehensionExpr': {
      const c = k.value;
      const inner: Scope = { has: (name) => name === c.iterVar || name === c.iterVar2 || name === c.accuVar || declared.has(name) };
      return (
        undeclared(c.iterRange, declared, positions) ??
        undeclared(c.accuInit, declared, positions) ??
        undeclared(c.loopCondition, inner, positions) ??
        undeclared(c.loopStep, inner, positions) ??
        undeclared(c.result, inner, positions)
      );
    }
    default:
      return null;
  }
}

/** The source offset of an expression node. */
function positionOf(parsed: ParsedExpr, id: bigint): number {
  return (parsed.sourceInfo?.positions as Record<string, number> | undefined)?.[String(id)] ?? 0;
}

/** Identifiers CEL itself resolves (type names used as values or conversions). */
const BUILTIN_IDENTIFIERS = new Set(['null', 'int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'type', 'null_type', 'dyn']);

/**
 * Parses an expression and checks that it reads only the declared variables; throws a
 * CelCompileError with the message kube's compiler would give ("undeclared reference to 'x'").
 */
export function compileExpression(source: string, variables: readonly string[], options: CompileOptions = {}): CompiledExpression {
  let parsed: ParsedExpr;
  try {
    parsed = parse(source);
  } catch (err) {
    const e = err as { rawMessage?: string; location?: { start?: { offset?: number } }; message: string };
    throw new CelCompileError(celErrorText(source, e.location?.start?.offset ?? 0, `Syntax error: ${e.rawMessage ?? e.message}`));
  }
  const declared = new Set([...variables, ...BUILTIN_IDENTIFIERS]);
  const missing = undeclared(parsed.expr, declared, (parsed.sourceInfo?.positions ?? {}) as Record<string, number>);
  if (missing) throw new CelCompileError(celErrorText(source, missing.offset, `undeclared reference to '${missing.name}' (in container '')`));
  const badPattern = invalidMatchesLiteral(parsed.expr);
  if (badPattern !== null) throw new CelCompileError(celErrorText(source, positionOf(parsed, badPattern), 'invalid matches argument'));
  if (options.objectConstruction) constructionsAsMaps(parsed.expr);
  const outsideLoops = meterLoops(parsed);
  const program = plan(ENV, parsed);
  // kube's per-expression limit (cel.CostLimit(PerCallLimit) of the base environment)
  const run = (vars: Record<string, unknown>): CelResult => {
    const evaluation = metered(PER_CALL_LIMIT, () => program(vars as never));
    return evaluation.exceeded || evaluation.cost + outsideLoops > PER_CALL_LIMIT ? celError(COST_LIMIT_EXCEEDED) : evaluation.result;
  };
  return { source, parsed, run: (vars, authorize) => withAuthorizer(authorize, () => run(vars)) };
}

/** An expression that could not be compiled: every evaluation is an error saying why. */
export function failingExpression(source: string, message: string): CompiledExpression {
  return { source, parsed: parse('null'), run: () => celError(message) };
}

/** A CEL result as JSON (audit annotation values, messages). */
export function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), fromCel(v)]));
  if (isCelMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value.entries()) out[String(k)] = fromCel(v);
    return out;
  }
  if (isCelList(value)) return [...value].map(fromCel);
  if (Array.isArray(value)) return value.map(fromCel);
  return value;
}

/** cel-go's "expression '<expr>' resulted in error: <err>" of a failed evaluation (cel.filter ForInput). */
export function evaluationError(source: string, result: CelResult): string {
  return `expression '${source}' resulted in error: ${isCelError(result) ? result.message : String(result)}`;
}

export { isCelError };
