import type { CelError, CelResult } from '@bufbuild/cel';
import type * as Engine from './cel-engine';
import type { CompiledExpression, CompileOptions } from './cel-expression';

export { CelCompileError, celErrorText, type CompiledExpression, type CompileOptions } from './cel-expression';

/**
 * CEL for admission (policies, webhooks' and policies' matchConditions), see cel-engine.ts. The
 * engine (@bufbuild/cel and kube's libraries) is loaded with the first expression compiled: a
 * start, and a cluster without policies or match conditions, never pays for it.
 */

let engine: typeof Engine | undefined;

function celEngine(): typeof Engine {
  return (engine ??= require('./cel-engine') as typeof Engine);
}

export function compileExpression(source: string, variables: readonly string[], options: CompileOptions = {}): CompiledExpression {
  return celEngine().compileExpression(source, variables, options);
}

export function failingExpression(source: string, message: string): CompiledExpression {
  return celEngine().failingExpression(source, message);
}

export function fromCel(value: unknown): unknown {
  return celEngine().fromCel(value);
}

export function evaluationError(source: string, result: CelResult): string {
  return celEngine().evaluationError(source, result);
}

/** No CEL error exists before the engine is loaded. */
export function isCelError(value: unknown): value is CelError {
  return engine !== undefined && engine.isCelError(value);
}

/** JSON as CEL sees an unstructured object: maps, lists, ints for whole numbers, doubles otherwise. */
export function toCel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toCel);
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value === 'object' && value !== null && !(value instanceof Map)) {
    return new Map(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  }
  return value;
}
