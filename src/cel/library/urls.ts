import { CelScalar, listType, mapType } from '@bufbuild/cel';
import { escapedPath, hostPort, parseRequestURI, parseURL, query, urlString, type GoURL } from './go-url';
import { field, func, typedMethod, typedValue, type Overload } from './typed-values';

/**
 * Kubernetes' URL library (apiserver/pkg/cel/library/urls.go): `url()`, `isURL()`, and on a URL
 * `getScheme`, `getHost`, `getHostname`, `getPort`, `getEscapedPath`, `getQuery`. A URL is kept as
 * Go's URL.String() of it, which is what its `==` compares.
 */

const { STRING, BOOL } = CelScalar;
const KIND = 'url';

/** stringToUrl: checked with ParseRequestURI (an absolute URI or path), then parsed with Parse (which keeps the fragment apart). */
function toURL(raw: string): GoURL {
  try {
    parseRequestURI(raw);
    return parseURL(raw);
  } catch (err) {
    throw new Error(`URL parse error during conversion from string: ${(err as Error).message}`);
  }
}

function isURL(raw: string): boolean {
  try {
    parseRequestURI(raw);
    return true;
  } catch {
    return false;
  }
}

const urlOf = (value: unknown): GoURL => parseURL(field<string>(value, 'url'));

export const urlLibrary: Overload[] = [
  func('url', [STRING], KIND, (raw: string) => typedValue(KIND, { url: urlString(toURL(raw)) })),
  func('isURL', [STRING], BOOL, isURL),
  typedMethod(KIND, 'getScheme', [], STRING, (u) => urlOf(u).scheme),
  typedMethod(KIND, 'getHost', [], STRING, (u) => urlOf(u).host),
  typedMethod(KIND, 'getHostname', [], STRING, (u) => hostPort(urlOf(u)).hostname),
  typedMethod(KIND, 'getPort', [], STRING, (u) => hostPort(urlOf(u)).port),
  typedMethod(KIND, 'getEscapedPath', [], STRING, (u) => escapedPath(urlOf(u))),
  typedMethod(KIND, 'getQuery', [], mapType(STRING, listType(STRING)), (u) => query(urlOf(u))),
];
