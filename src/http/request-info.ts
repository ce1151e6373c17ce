/** Parses a request path once into what kube-apiserver calls RequestInfo. */

export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'head' | 'unknown';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  verb: RequestVerb;
  apiPrefix: 'api' | 'apis';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments from the resource on. */
  parts: string[];
  /**
   * The resource came after a `namespaces/{namespace}/` prefix (`/api/v1/namespaces/a/pods`),
   * unlike a Namespace's own path (`/api/v1/namespaces/a`, `.../a/status`), whose namespace is its
   * name: kube's routes serve only namespaced kinds under the prefix.
   */
  underNamespace: boolean;
  /**
   * The path begins with its API root (`/api/v1`, `/apis/g/v`) as kube's director compares it
   * (handler.go director.ServeHTTP, a plain prefix test): false for `//api/v1/...`, which
   * RequestInfo still reads as a resource request (splitPath trims every leading slash) but no
   * route serves (404).
   */
  rooted: boolean;
  /** The HTTP method, which picks the route where RequestInfo's verb does not (an empty name segment). */
  method: string;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  verb: string;
  path: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const METHOD_VERBS: Record<string, RequestVerb> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export function isTruthyParam(value: unknown): boolean {
  return typeof value === 'string' && ['1', 'true', 't', 'True', 'TRUE', 'T'].includes(value);
}

/**
 * How ListOptions.watch converts (runtime.Convert_Slice_string_To_bool): absent, "0" or "false"
 * (any case) is false; any other value, the empty string included, is true.
 */
export function boolOption(value: string | null): boolean {
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * RequestInfoFactory's splitPath: leading and trailing slashes trimmed, the empty segments
 * between two slashes kept (`/api/v1/namespaces//pods` reads as pods in the namespace "").
 */
function splitPath(pathname: string): string[] {
  let start = 0;
  let end = pathname.length;
  while (start < end && pathname.charCodeAt(start) === SLASH) start++;
  while (end > start && pathname.charCodeAt(end - 1) === SLASH) end--;
  return start === end ? [] : pathname.slice(start, end).split('/');
}

const SLASH = 0x2f;

export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const segments = splitPath(pathname);
  const nonResource = (): NonResourceRequestInfo => ({ isResourceRequest: false, verb: method.toLowerCase(), path: pathname });
  const apiPrefix = segments[0];
  if (apiPrefix !== 'api' && apiPrefix !== 'apis') return nonResource();
  // The segments are read from `at` on, without copies: this runs first on every request.
  let at = 1;
  let group = '';
  if (apiPrefix === 'apis') {
    if (segments.length - at < 3) return nonResource();
    group = segments[at++];
  } else if (segments.length - at < 2) {
    return nonResource();
  }
  const version = segments[at++];
  let verb: RequestVerb = METHOD_VERBS[method] ?? 'unknown';
  let legacyWatch = false;
  if (segments[at] === 'watch' && verb === 'get') {
    legacyWatch = true;
    at++;
    if (at === segments.length) return nonResource();
  }
  let namespace = '';
  let underNamespace = false;
  if (segments[at] === 'namespaces' && segments.length - at > 1) {
    namespace = segments[at + 1];
    underNamespace = segments.length - at > 2 && !NAMESPACE_SUBRESOURCES.has(segments[at + 2]);
    if (underNamespace) at += 2;
  }
  const resource = segments[at] ?? '';
  const name = segments[at + 1] ?? '';
  const subresource = segments[at + 2] ?? '';
  if (verb === 'get' && !name) verb = 'list';
  if (verb === 'delete' && !name) verb = 'deletecollection';
  // The /watch/ prefix watches a named object too; ?watch= turns only a collection's list into a watch (a named get stays one).
  if ((legacyWatch && (verb === 'get' || verb === 'list')) || (verb === 'list' && boolOption(query.get('watch')))) verb = 'watch';
  const rooted = !pathname.startsWith('//');
  return {
    isResourceRequest: true,
    verb,
    apiPrefix,
    group,
    version,
    namespace,
    resource,
    subresource,
    name,
    parts: segments.slice(at),
    underNamespace,
    rooted,
    method,
  };
}
