import { RE2JS } from 're2js';

/**
 * Go's regexp package for patterns users write (CEL's `matches`, `find` and `findAll`, a CRD's
 * OpenAPI `pattern`): RE2 syntax and leftmost-first semantics over re2js, which matches in time
 * linear in the input, so no pattern can stall the event loop as a backtracking engine can
 * (`^(a+)+$`). Errors carry Go's text ("error parsing regexp: invalid or unsupported Perl syntax:
 * `(?=`"). Compiled patterns, and patterns that do not compile, are kept in a bounded cache.
 */

/** A pattern Go's regexp.Compile rejects; the message is Go's. */
export class RegexpSyntaxError extends Error {}

export type GoRegexp = RE2JS;

const CACHE_SIZE = 1024;
const cache = new Map<string, GoRegexp | RegexpSyntaxError>();

/** regexp.Compile, or a RegexpSyntaxError. */
export function compileGoRegexp(pattern: string): GoRegexp {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    try {
      entry = RE2JS.compile(pattern);
    } catch (err) {
      entry = new RegexpSyntaxError((err as Error).message);
    }
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  } else {
    cache.delete(pattern);
  }
  // re-inserted on every use: the first key is the least recently used one
  cache.set(pattern, entry);
  if (entry instanceof RegexpSyntaxError) throw entry;
  return entry;
}

/** Go's error for a pattern, or null when it compiles. */
export function goRegexpError(pattern: string): string | null {
  try {
    compileGoRegexp(pattern);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** regexp.MatchString: whether the pattern matches anywhere in the text. */
export function matchString(re: GoRegexp, text: string): boolean {
  return re.test(text);
}

/** regexp.FindString: the leftmost match, or '' when there is none. */
export function findString(re: GoRegexp, text: string): string {
  const m = re.matcher(text);
  return m.find() ? (m.group() ?? '') : '';
}

/** regexp.FindAllString: successive non-overlapping matches, an empty match abutting the previous match skipped; n < 0 means all. */
export function findAllString(re: GoRegexp, text: string, n: number): string[] {
  const out: string[] = [];
  if (n === 0) return out;
  const m = re.matcher(text);
  let previousEnd = -1;
  while ((n < 0 || out.length < n) && m.find()) {
    if (m.start() === m.end() && m.start() === previousEnd) continue;
    out.push(m.group() ?? '');
    previousEnd = m.end();
  }
  return out;
}
