import type { IncomingMessage, RequestListener } from 'node:http';
import { isIP } from 'node:net';
import { StatusError, unsupportedMediaType } from '../../api/errors';
import { parseMediaType } from '../../codec/media-type';
import { writeError } from '../respond';
import { firstSeenMemo } from '../../api/first-seen-memo';

/**
 * The CORS-safelisted body types a web page can make a browser send without a preflight. On a port
 * where every request is a cluster admin, such a body is refused instead of read as JSON. A body
 * with no type is read as JSON, as kube-apiserver reads it: kubectl sends some (`create --raw`,
 * `scale --current-replicas`), and a browser's cross-origin write without one still carries an
 * Origin, which the check above refuses.
 */
const BROWSER_SIMPLE_TYPES = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** `localhost`, `*.localhost`, or an address: names that DNS rebinding cannot point at this port. */
function isLoopbackName(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const lower = bare.toLowerCase();
  return lower === 'localhost' || lower.endsWith('.localhost') || isIP(bare) !== 0;
}

/** The host name of a Host header (`name:port`, `[v6]:port`), or null when it is not one. */
function parseHostname(authority: string): string | null {
  try {
    return new URL(`http://${authority}`).hostname;
  } catch {
    return null;
  }
}

/** A client sends the same Host on every request: its parse (a URL, about 10 µs) is kept for the few seen. */
const hostnameOf = firstSeenMemo(64, parseHostname);

function isLoopbackAddress(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return bare === 'localhost' || bare === '::1' || bare.startsWith('127.');
}

const refused = (message: string): StatusError => new StatusError(403, 'Forbidden', message);

/** Why a request may not reach the insecure port's handlers, or null when it may. */
function refusal(req: IncomingMessage, accepted: string[]): StatusError | null {
  const host = req.headers.host;
  const hostname = host === undefined ? null : hostnameOf(host);
  if (host !== undefined && (hostname === null || !isLoopbackName(hostname))) {
    return refused(`the insecure port serves only requests addressed to localhost or an IP address, not to host ${JSON.stringify(host)}`);
  }
  // A browser names the page's origin on every cross-origin write and every WebSocket handshake; clients of the API send none, or their own loopback one.
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const from = hostnameOf(origin.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''));
    if (from === null || (!isLoopbackAddress(from) && from !== hostname)) {
      return refused(`the insecure port does not serve requests from web pages of origin ${JSON.stringify(origin)}`);
    }
  }
  // An upgrade (exec, attach, port-forward over SPDY) carries no body, and a browser cannot send one.
  if (WRITE_METHODS.has(req.method ?? '') && req.headers.upgrade === undefined) {
    const type = req.headers['content-type'];
    // A browser sends a simple type with any parameters, even ones Go's parser refuses (`text/plain; foo`).
    const mediaType = type === undefined ? undefined : (parseMediaType(type)?.type ?? type.split(';')[0].trim().toLowerCase());
    if (mediaType !== undefined && BROWSER_SIMPLE_TYPES.has(mediaType)) return unsupportedMediaType(accepted);
  }
  return null;
}

/**
 * The plain-HTTP port's defence against web pages (kapi's own; kube-apiserver no longer has the
 * port): only loopback names or addresses in Host (DNS rebinding), no foreign Origin, and no write
 * a browser could send without a preflight. `accepted` are the media types the 415 names.
 */
export function withInsecurePortGuard(accepted: string[], next: RequestListener): RequestListener {
  return (req, res) => {
    const err = refusal(req, accepted);
    if (!err) return next(req, res);
    req.resume();
    res.setHeader('Cache-Control', 'no-cache, private');
    writeError(res, err, req.headers.accept, ['json'], false, false);
  };
}
