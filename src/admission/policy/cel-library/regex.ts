import { CelScalar, listType } from '@bufbuild/cel';
import { method, type Overload } from './typed-values';

/**
 * Kubernetes' regex library (apiserver/pkg/cel/library/regex.go): `find` and `findAll` with an
 * optional limit. Patterns are ECMAScript ones in unicode mode (as kapi's `matches`), not RE2.
 */

const { STRING, INT } = CelScalar;

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'gu');
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
  method('find', STRING, [STRING], STRING, (text: string, pattern: string) => compile(pattern).exec(text)?.[0] ?? ''),
  method('findAll', STRING, [STRING], listType(STRING), (text: string, pattern: string) => findAll(text, pattern, -1n)),
  method('findAll', STRING, [STRING, INT], listType(STRING), (text: string, pattern: string, n: bigint) => findAll(text, pattern, n)),
];
