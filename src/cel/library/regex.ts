import { CelScalar, listType } from '@bufbuild/cel';
import { func, method, type Overload } from './typed-values';

/**
 * Kubernetes' regex library (apiserver/pkg/cel/library/regex.go): `find` and `findAll` with an
 * optional limit, and the standard `matches` as a function and a method. Patterns are ECMAScript
 * ones in unicode mode, not RE2, except that Go's leading flag group (`(?i)`, `(?s)`, `(?m)`,
 * `(?is)`...) becomes the RegExp's flags.
 */

const { STRING, INT, BOOL } = CelScalar;

const LEADING_FLAGS = /^\(\?([ims]+)\)/;

/** A pattern as a RegExp: its leading Go flag group as flags, unicode mode, and `extra` flags. */
export function goRegExp(pattern: string, extra = ''): RegExp {
  const flags = LEADING_FLAGS.exec(pattern);
  return new RegExp(flags ? pattern.slice(flags[0].length) : pattern, `u${extra}${flags ? [...new Set(flags[1])].join('') : ''}`);
}

function compile(pattern: string): RegExp {
  try {
    return goRegExp(pattern, 'g');
  } catch (err) {
    throw new Error(`Illegal regex: ${(err as Error).message}`);
  }
}

/** regexp.FindAllString: successive non-overlapping matches; an empty match right after a match is skipped; n < 0 means all. */
export function findAll(text: string, pattern: string, n: bigint): string[] {
  const re = compile(pattern);
  const out: string[] = [];
  let previousEnd = -1;
  while (n < 0n || BigInt(out.length) < n) {
    const m = re.exec(text);
    if (!m) break;
    const end = m.index + m[0].length;
    if (m[0] === '') {
      re.lastIndex = m.index + (text.codePointAt(m.index)! > 0xffff ? 2 : 1);
      if (m.index === previousEnd) continue;
    }
    out.push(m[0]);
    previousEnd = end;
    if (m.index >= text.length) break;
  }
  return out;
}

export const regexLibrary: Overload[] = [
  func('matches', [STRING, STRING], BOOL, (text: string, pattern: string) => goRegExp(pattern).test(text)),
  method('matches', STRING, [STRING], BOOL, (text: string, pattern: string) => goRegExp(pattern).test(text)),
  method('find', STRING, [STRING], STRING, (text: string, pattern: string) => compile(pattern).exec(text)?.[0] ?? ''),
  method('findAll', STRING, [STRING], listType(STRING), (text: string, pattern: string) => findAll(text, pattern, -1n)),
  method('findAll', STRING, [STRING, INT], listType(STRING), (text: string, pattern: string, n: bigint) => findAll(text, pattern, n)),
];
