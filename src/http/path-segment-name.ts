import { badRequest } from '../api/errors';
import { goQuote } from '../api/field-errors';

/**
 * What apimachinery's path.IsValidPathSegmentName says of a name from a request path, joined as
 * the registry's key functions join it; [] for a valid one.
 */
function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/**
 * A stored object's name must be usable as one segment of its etcd key: kube's NamespaceKeyFunc
 * and NoNamespaceKeyFunc refuse `.`, `..` and names with `/` or `%` with a 400 before the store is
 * read or written.
 */
export function assertPathSegmentName(name: string): void {
  const problems = pathSegmentProblems(name);
  if (problems.length > 0) throw badRequest(`Name parameter invalid: ${goQuote(name)}: ${problems.join(';')}`);
}
