/**
 * How a schema property name reads in CEL (apiserver/pkg/cel/escaping.go Escape): a CEL
 * reserved word as `__name__`, and `__`, `.`, `-`, `/` as `__underscores__`, `__dot__`,
 * `__dash__`, `__slash__`.
 */
const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const ESCAPES: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

export function celPropertyName(name: string): string {
  if (RESERVED.has(name)) return `__${name}__`;
  return name.replace(/__|[./-]/g, (m) => ESCAPES[m]);
}
