import { celError, celFunc, CelScalar, isCelError, isCelList, isCelMap, parse, type CelResult } from '@bufbuild/cel';
import type { Expr, ParsedExpr } from '../../cel/ast';
import { celEnvironment, CelCompileError, celErrorText, parseExpression, planExpression } from '../../cel/compiler';
import type { CompiledExpression, CompileOptions } from './cel-expression';
import { constructionsAsMaps } from './object-construction';
import { authorizerLibrary, withAuthorizer } from './authorizer-library';
import { QUALIFIED_LIBRARY_FUNCTIONS } from '../../cel/library';
import { invalidMatchesLiteral } from '../../cel/regex-literals';
import { COST_LIMIT_EXCEEDED } from '../../cel/cost-limits';

/**
 * The engine behind ./cel.ts, loaded with the first expression: CEL for admission (policies' validations, variables and audit annotations; webhooks' and
 * policies' matchConditions): the shared compiler's base environment (cel/compiler.ts) with
 * Kubernetes' authorizer library and mutating policies' `jsonpatch.escapeKey`. Expressions are
 * compiled once and run against JSON objects converted to CEL values (objects as maps, whole
 * numbers as ints).
 */

/** `jsonpatch.escapeKey(string)` of mutating policies (library.JSONPatch): a key as one JSON Pointer token (RFC 6901). */
const escapeKeyFunction = celFunc('jsonpatch.escapeKey', [CelScalar.STRING], CelScalar.STRING, (key) => key.replaceAll('~', '~0').replaceAll('/', '~1'));

const ENV = celEnvironment([escapeKeyFunction, ...authorizerLibrary]);

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
      const inner: Scope = { has: (name) => name === c.iterVar || (c.iterVar2 !== '' && name === c.iterVar2) || name === c.accuVar || declared.has(name) };
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
  const parsed = parseExpression(source);
  const declared = new Set([...variables, ...BUILTIN_IDENTIFIERS]);
  const missing = undeclared(parsed.expr, declared, (parsed.sourceInfo?.positions ?? {}) as Record<string, number>);
  if (missing) throw new CelCompileError(celErrorText(source, missing.offset, `undeclared reference to '${missing.name}' (in container '')`));
  const badPattern = invalidMatchesLiteral(parsed.expr);
  if (badPattern !== null) throw new CelCompileError(celErrorText(source, positionOf(parsed, badPattern), 'invalid matches argument'));
  const program = planExpression(ENV, parsed, options.objectConstruction ? (copy) => constructionsAsMaps(copy.expr) : undefined);
  const measure = (vars: Record<string, unknown>): { result: CelResult; cost: number } => {
    const evaluation = program.run(vars);
    return { result: evaluation.exceeded ? celError(COST_LIMIT_EXCEEDED) : evaluation.result, cost: evaluation.cost };
  };
  return {
    source,
    parsed,
    run: (vars, authorize) => withAuthorizer(authorize, () => measure(vars).result),
    measure: (vars, authorize) => withAuthorizer(authorize, () => measure(vars)),
  };
}

/** An expression that could not be compiled: every evaluation is an error saying why. */
export function failingExpression(source: string, message: string): CompiledExpression {
  return { source, parsed: parse('null'), run: () => celError(message), measure: () => ({ result: celError(message), cost: 0 }) };
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
