import { CelScalar, listType } from '@bufbuild/cel';
import { method, type Overload } from './typed-values';

/**
 * cel-go's ext strings (version 2) where `@bufbuild/cel/ext` differs from it: `split(sep, n)` is
 * Go's strings.SplitN (at most n parts, the last holding the rest; 0 gives none, a negative n
 * all), where the evaluator's drops what is past the n-th part. Declared after the evaluator's, it
 * takes its place.
 */

const { STRING, INT } = CelScalar;

/** strings.SplitN; an empty separator splits after each code point. */
export function splitN(text: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  const all = sep === '' ? [...text] : text.split(sep);
  if (n < 0n || BigInt(all.length) <= n) return all;
  const count = Number(n);
  return [...all.slice(0, count - 1), all.slice(count - 1).join(sep)];
}

export const stringsLibrary: Overload[] = [
  method('split', STRING, [STRING, INT], listType(STRING), (text: string, sep: string, n: bigint) => splitN(text, sep, n)),
];
