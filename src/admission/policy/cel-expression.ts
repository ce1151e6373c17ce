import type { CelResult } from '@bufbuild/cel';
import type { ParsedExpr } from '../../cel/ast';
import type { AuthorizeFn } from './authorizer-library';

/** What a compiled expression is and how compiling fails, without the CEL engine itself (cel-engine.ts). */

export type { ParsedExpr };

/** How an expression is compiled: mutating policies' mutations may construct JSONPatch and Object values. */
export interface CompileOptions {
  objectConstruction?: boolean;
}

/** A compiled expression: `run` evaluates it against variables already converted to CEL values; `measure` also says what that cost. */
export interface CompiledExpression {
  source: string;
  parsed: ParsedExpr;
  run(vars: Record<string, unknown>, authorize: AuthorizeFn | null): CelResult;
  measure(vars: Record<string, unknown>, authorize: AuthorizeFn | null): { result: CelResult; cost: number };
}

export { CelCompileError, celErrorText } from '../../cel/compile-error';
