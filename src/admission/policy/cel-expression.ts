import type { CelResult, parse } from '@bufbuild/cel';
import type { AuthorizeFn } from './authorizer-library';

/** What a compiled expression is and how compiling fails, without the CEL engine itself (cel-engine.ts). */

export type ParsedExpr = ReturnType<typeof parse>;

/** How an expression is compiled: mutating policies' mutations may construct JSONPatch and Object values. */
export interface CompileOptions {
  objectConstruction?: boolean;
}

/** A compiled expression: `run` evaluates it against variables already converted to CEL values. */
export interface CompiledExpression {
  source: string;
  parsed: ParsedExpr;
  run(vars: Record<string, unknown>, authorize: AuthorizeFn | null): CelResult;
}

/** A compile error, in cel-go's words where kapi's parser has them ("ERROR: <input>:1:5: ..." with the source line and a caret). */
export class CelCompileError extends Error {}

/** cel-go's error location and snippet (common.Errors.ToDisplayString). */
export function celErrorText(source: string, offset: number, message: string): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1);
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${'.'.repeat(column)}^`;
}
