import type { RequestInfo } from '../request-info';

/** Subresources that stream for as long as the client wants them. */
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/**
 * kube-apiserver's default long-running check (BasicLongRunningRequestCheck with the verbs watch
 * and proxy, and the subresources above): such requests have no deadline and are not counted
 * against the in-flight limits.
 */
export function isLongRunning(info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  return info.verb === 'watch' || (info.verb as string) === 'proxy' || LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}
