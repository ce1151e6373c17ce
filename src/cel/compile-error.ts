/**
 * How compiling CEL fails, in cel-go's words: kept apart from the compiler so that code reporting
 * compile errors does not load the CEL engine.
 */

/** cel-go's error location and snippet (common.Errors.ToDisplayString). */
export function celErrorText(source: string, offset: number, message: string): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1);
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${'.'.repeat(column)}^`;
}

/** A compile error, in cel-go's words where kapi's parser has them ("ERROR: <input>:1:5: ..." with the source line and a caret). */
export class CelCompileError extends Error {}
