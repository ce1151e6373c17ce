import type { IncomingMessage } from 'node:http';
import type { RequestLabels } from '../../metrics/metrics';
import type { RequestInfo } from '../request-info';
import { validateDryRunParam } from '../../api/dry-run-validation';

/** endpoints/metrics' validConnectRequests: subresources whose requests are reported as CONNECT. */
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);

/** apiserver_request_total's verb: the HTTP method, except LIST, WATCH, APPLY and CONNECT (metrics.CleanVerb). */
function reportedVerb(req: IncomingMessage, info: RequestInfo): string {
  if (!info.isResourceRequest) return (req.method ?? 'GET').toUpperCase();
  if (CONNECT_SUBRESOURCES.has(info.subresource)) return 'CONNECT';
  if (info.verb === 'list') return 'LIST';
  if (info.verb === 'watch') return 'WATCH';
  if (req.method === 'PATCH' && (req.headers['content-type'] ?? '').startsWith('application/apply-patch')) return 'APPLY';
  return (req.method ?? 'GET').toUpperCase();
}

/**
 * metrics.cleanDryRun: a request's dryRun values, deduplicated and sorted when all of them are
 * valid ("All" is the only one), otherwise "invalid", so that a client cannot add label values.
 */
function cleanDryRun(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  return validateDryRunParam(values).length === 0 ? 'All' : 'invalid';
}

export function requestLabels(req: IncomingMessage, info: RequestInfo, query: URLSearchParams): RequestLabels {
  if (!info.isResourceRequest) {
    return { verb: reportedVerb(req, info), dry_run: '', group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' };
  }
  const scope = info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster';
  return {
    verb: reportedVerb(req, info),
    dry_run: cleanDryRun(query),
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    scope,
    component: 'apiserver',
  };
}
