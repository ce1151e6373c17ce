import { CelScalar, listType } from '@bufbuild/cel';
import { spend } from '../cost';
import { compileGoRegexp, findAllString, findString, matchString, type GoRegexp } from '../go-regexp';
import { func, method, type Overload } from './typed-values';

/**
 * Kubernetes' regex library (apiserver/pkg/cel/library/regex.go): `find` and `findAll` with an
 * optional limit, and the standard `matches` as a function and a method, all with Go's regexp
 * (RE2, linear time: go-regexp.ts). A pattern that does not compile is an evaluation error: Go's
 * message for `matches` (types.String.Match), "Illegal regex: " and Go's message for the others.
 */

const { STRING, INT, BOOL } = CelScalar;

/** `use` of the compiled pattern, with its cost spent; a pattern that does not compile throws (an evaluation error) `prefix` + Go's message. */
function withPattern<T>(text: string, pattern: string, prefix: string, use: (re: GoRegexp) => T): T {
  // cel-go's cost of a regex call: the string traversed once per quarter of the pattern's length
  spend(Math.ceil((1 + text.length) * 0.1) * Math.ceil(pattern.length * 0.25));
  let re: GoRegexp;
  try {
    re = compileGoRegexp(pattern);
  } catch (err) {
    throw new Error(`${prefix}${(err as Error).message}`);
  }
  return use(re);
}

const matches = (text: string, pattern: string) => withPattern(text, pattern, '', (re) => matchString(re, text));
const findAll = (text: string, pattern: string, n: bigint) =>
  withPattern(text, pattern, 'Illegal regex: ', (re) => findAllString(re, text, n > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(n)));

export const regexLibrary: Overload[] = [
  func('matches', [STRING, STRING], BOOL, matches),
  method('matches', STRING, [STRING], BOOL, matches),
  method('find', STRING, [STRING], STRING, (text: string, pattern: string) => withPattern(text, pattern, 'Illegal regex: ', (re) => findString(re, text))),
  method('findAll', STRING, [STRING], listType(STRING), (text: string, pattern: string) => findAll(text, pattern, -1n)),
  method('findAll', STRING, [STRING, INT], listType(STRING), findAll),
];
