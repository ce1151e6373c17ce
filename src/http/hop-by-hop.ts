/**
 * Hop-by-hop headers (RFC 7230 §6.1, and net/http/httputil's list, which adds the proxy ones): a
 * proxy never forwards them, either way. The connect subresources and the aggregator share it.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
